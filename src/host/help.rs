//! Help ▸ Using Asgard: what a reader can do with the animations of a document, in one
//! window. The README's "The host" section says the same for someone who has not started it.

use gtk::prelude::*;
use gtk4 as gtk;

/// The help text, as Pango markup.
const HELP: &str = "\
<b>Animations in this document</b>
Each animation plays in a loop. Click one: the Asgard menu then acts on it.
Drag with the left, middle or right button to turn, move or zoom the view; the wheel zooms once the animation has the focus.
Right-click an animation (without dragging) for its menu.

<b>Playback</b>
Point at an animation (or click it) for its control bar: start, a frame back, play or pause, a frame forward, end, reverse, slower, the rate, faster, Loop.
Over a clicked animation the keys do the same: space plays or pauses, Left and Right step a frame, Home and End go to the start and the end, r reverses, [ and ] halve and double the speed (⅛× to 8×).
The Asgard menu has Play (Ctrl+P), Stop (Ctrl+.) and Rewind (Ctrl+Home) too.
Live (Ctrl+L) runs the scene in real time: drag a body to pull it, the arrow keys push it.

<b>More views of one animation</b>
New View of This Animation (Ctrl+Shift+N, also in the animation's right-click menu) shows a second view beside it: the same animation with its own camera and time. Turn, zoom, play, pause or step each alone; the Asgard menu acts on the view clicked last.
Every view follows every edit of the scene. Close This View (Ctrl+Shift+W) closes the view clicked last; the first view is the document's own.
The views you add are yours, like windows: they are not saved in the document.

<b>Editing the animation</b>
Full Editor (Ctrl+Shift+E) opens Asgard's whole editor on the animation: the control panel (File, Edit, View, Create and Shapes menus, Simulate), a graphical viewer and a language viewer, and every window they open (shape and trajectory editors, plots, exports).
Every edit made there comes back into this document at once (its title gets a *), and the animation here follows.
In the editor, File ▸ Save the document (or Ctrl+S) saves this document, as File ▸ Save here does; Ctrl+Z undoes an edit.
Opening the Full Editor again raises the one that is open. Closing its control panel closes its windows; the document keeps every edit.
Graphical Editor (Ctrl+Shift+G) and Language Editor (Ctrl+Shift+L) open one viewer each.
Position and Velocity Handles show handles in the animation itself: drag one with Shift held to edit the scene.
Recompute Motion simulates the scene again.
In the editor's graphical viewer, View ▸ Keep this view (Ctrl+Shift+K) makes the view shown the scene's camera; in the editor's control panel the Camera fields (Alt+O, Alt+A) set where the camera stands and the point it looks at; in a graphical viewer turned away from the camera, Shift-drag its blue marker (where it stands) or its pale one (what it looks at). The animation here then starts from that camera.
In the editor, Create ▸ Body of shape then a click puts a new body on the surface clicked (a body's or the ground), resting on it; the view takes it in.
In the editor's language viewer, a shape or trajectory you add or change is shown in full; the ⋯ icon in front of a long list folds or unfolds it.
In the shape editor, Shift with the middle button adds a vertex to the selected polyhedron and Shift with the right button deletes one; the point picked last (Shift+click a vertex) and a sphere's radius can be typed in the fields under the view (Alt+X, Alt+Y, Alt+Z, Alt+R, then Enter); Import hull (Alt+I) adds the convex hull of an OBJ or STL file (a bad line is shown in a window with its file:line); Apply writes the shape. In the trajectory editor, the point clicked last shows its Time, x, y and z to type over (Enter writes them).
The control panel's fields set Finish, Step, Tolerance, Live dt and Live rate (live mode's real-time factor): type a value, press Enter, and it is written into the scene.

<b>The document</b>
Type into paragraphs to edit them. Edit ▸ Insert Animation adds an empty one (or one from a .asg file) at the cursor; Delete Animation removes the one clicked last.
Save (Ctrl+S) writes only what changed; the previous version is kept as NAME~.
File ▸ Export window as PNG writes a picture of this window as it shows now, animations included.
A document that cannot be read opens a window saying where the problem is (file:line:column); the file is left as it is: correct it in a text editor and open it again.";

/// Shows the help window over `parent`.
pub fn show(parent: &gtk::ApplicationWindow) {
    let label = gtk::Label::new(None);
    label.set_markup(HELP);
    label.set_wrap(true);
    label.set_xalign(0.0);
    label.set_yalign(0.0);
    label.set_selectable(true);
    label.set_margin_start(12);
    label.set_margin_end(12);
    label.set_margin_top(12);
    label.set_margin_bottom(12);
    let scroller = gtk::ScrolledWindow::new();
    scroller.set_child(Some(&label));
    let window = gtk::Window::builder()
        .title("Using Asgard")
        .transient_for(parent)
        .default_width(560)
        .default_height(520)
        .child(&scroller)
        .build();
    window.present();
}
