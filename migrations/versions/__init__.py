"""The schema revisions, oldest first."""
