# What Scid's start-up gives correspondence.tcl, for the headless drivers (xfcc.tcl,
# email.tcl): Scid's start-up variables as tcl/start.tcl sets them, with DIR as
# Scid's data and configuration folder, and stand-ins for its windows and dialogs:
# the splash screen says nothing and the message boxes print what they would show.
# Sourced with DIR as the first argument; then Scid's own correspondence.tcl.
# A driver's work goes to scid_run, which prints Scid's console lines at the end.

package require Tk
package require tdom
package require http
wm withdraw .

set dir [lindex $argv 0]
set action [lindex $argv 1]

set scidVersion "4.7.4"
set scidVersionDate "Jul 2022"
set scidDataDir $dir
set scidConfigDir $dir
proc scidConfigFile {name} { return [file join $::scidConfigDir $name] }
array set ::tr {Yes Yes No No Cancel Cancel}
proc ::tr {name} { return $name }

namespace eval ::splash { proc add {args} {} }
proc tk_messageBox {args} {
    array set o $args
    puts "DIALOG $o(-title): [string map {"\n" " "} $o(-message)]"
    return ok
}
proc tk_dialog {w title text args} { puts "DIALOG $title: $text"; return 0 }

source /usr/share/scid/tcl/tools/correspondence.tcl

# The correspondence window's console, where Scid writes what it does.
toplevel .ccWindow
frame .ccWindow.top
text .ccWindow.top.console
wm withdraw .ccWindow

proc scid_run {script} {
    set code 0
    if {[catch {uplevel #0 $script} problem]} {
        puts "ERROR $problem"
        puts $::errorInfo
        set code 1
    }
    puts -nonewline [.ccWindow.top.console get 1.0 end]
    exit $code
}
