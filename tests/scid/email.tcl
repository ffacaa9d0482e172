# Scid's own e-mail mode, run headless: Scid 4.7.4's tcl/tools/correspondence.tcl is
# sourced unmodified into tkscid, and its eMailMove mails the move through the
# mailer named in Scid's correspondence options.
#
#   tkscid email.tcl DIR PGN SAN
#
# DIR is Scid's folder: its options file `correspondence` (Inbox, Outbox, mailer,
# bccaddr, as Scid's dialog saves them) is read by correspondence.tcl itself. The
# game of PGN (the file a move mail carried) is imported into a correspondence
# database, SAN is played at its end on Scid's board, and eMailMove sends it. The
# correspondence console's lines are printed at the end.

source [file join [file dirname [info script]] scid.tcl]

# What eMailMove reaches beyond correspondence.tcl: the database types of
# windows/switcher.tcl (their names up to the correspondence one) and its
# getBaseType; the cursor and the move list of the main window stand in.
namespace eval ::windows::switcher {
    variable base_types {Unknown {Temporary database} Clipbase {PGN format file} \
        {My games} {Large database} {Correspondence chess}}
}
proc getBaseType {baseId} {
    foreach {tagname tagvalue} [sc_base extra $baseId] {
        if {$tagname eq "type"} { return $tagvalue }
    }
    return 0
}
proc busyCursor {w {flag 1}} {}
proc unbusyCursor {w} {}
namespace eval ::move { proc End {} { sc_move end } }
ttk::button .ccWindow.top.openDB
set windowsOS 0
set emailData {}

scid_run {
    set pgn [lindex $argv 1]
    set san [lindex $argv 2]
    file mkdir $::CorrespondenceChess::Inbox $::CorrespondenceChess::Outbox
    set base [sc_base create [file join $dir correspondence-games]]
    sc_base extra $base type [lsearch $::windows::switcher::base_types {Correspondence chess}]
    sc_base import $base $pgn
    sc_base switch $base
    sc_game load 1
    sc_move end
    sc_move addSan $san
    ::CorrespondenceChess::eMailMove
}
