# Scid's own Xfcc client, run headless: Scid 4.7.4's tcl/tools/correspondence.tcl is
# sourced unmodified into tkscid (Scid's Tcl interpreter); only Scid's windows and
# dialogs are stood in for, and what they would show is printed.
#
#   tkscid xfcc.tcl DIR retrieve
#   tkscid xfcc.tcl DIR send GAMEID MOVECOUNT MOVE COMMENT RESIGN ACCEPT OFFER CLAIM
#
# DIR holds the xfccrc that names the server; retrieve writes the games' PGN into
# DIR/Inbox as Scid does (Xfcc::ProcessAll); send is what Scid's "Send move" does
# once it has read the move off its board (Xfcc::Send). Flags are 1/0, as Scid
# sends them. The correspondence console's lines are printed at the end.

source [file join [file dirname [info script]] scid.tcl]

scid_run {
    ::Xfcc::ReadConfig [file join $dir xfccrc]
    switch -- $action {
        retrieve {
            file mkdir [file join $dir Inbox]
            ::Xfcc::ProcessAll [file join $dir Inbox]
        }
        send {
            lassign [lrange $argv 2 end] gameid movecount move comment resign accept offer claim
            ::Xfcc::Send $::Xfcc::xfccsrv(0,0) $gameid $movecount $move $comment \
                $resign $accept $offer $claim
        }
    }
}
