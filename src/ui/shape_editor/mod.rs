//! The shape editor (4.1.1, figure 4.3): a shape set as spheres and convex polyhedra, each
//! shown by its vertices as small balls.
//!
//! Shift and the left button drag a vertex (in the plane of the screen), Shift and the middle
//! button add a vertex to the selected polyhedron, Shift and the right button delete one; the
//! unshifted buttons move the view as in the graphical viewer. The hull of every polyhedron is
//! drawn as it changes, vertices inside it are white (they are dropped when the shape is
//! written), and positions can snap to a grid. New sphere, New box and New polyhedron add
//! parts, and Import hull adds the convex hull of a Wavefront OBJ or STL file's vertices
//! (`geom::mesh_file`). The point picked last (a vertex, a sphere's centre or surface point)
//! and a sphere's radius can also be typed in the fields under the view. Apply and Done write
//! the `shape_set` into the text, one undo step. One shape editor is open at a
//! time per scene.

pub mod draft;

use super::editor::Editor;
use super::fields::{apply_button, labelled_entry};
use super::gl_view::{GlView, Scenery};
use super::scene_text::write_shape;
use crate::render::camera::{Bounds, Camera, Viewport};
use crate::render::frame::{Frame, Ground, Handle, Looks, Object};
use crate::render::mesh::{Mesh, MeshKey, MeshLibrary};
use crate::render::pick::{nearest_on_screen, pointer_ray};
use crate::render::scene_frame::palette;
use crate::scene::model::Vec3;
use crate::view::camera::button::{LEFT, MIDDLE, RIGHT};
use crate::view::camera::{ViewDrag, PICK_RADIUS};
use draft::{DraftGeometry, ShapeDraft, VertexLook, VertexRef};
use gtk::gdk;
use gtk::prelude::*;
use gtk4 as gtk;
use nalgebra::{Isometry3, Point2, Point3, UnitQuaternion, Vector3};
use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;

/// Subdivision of the sphere meshes drawn.
const SPHERE_LEVEL: u32 = 3;
const SELECTED: [f32; 4] = [0.95, 0.55, 0.20, 1.0];
const OTHER: [f32; 4] = [0.62, 0.62, 0.62, 1.0];
const INSIDE: [f32; 4] = [1.0, 1.0, 1.0, 1.0];

/// What a press in the view started.
#[derive(Clone, Copy, Debug)]
enum Gesture {
    View { how: ViewDrag, last: Point2<f64> },
    Vertex(VertexRef),
}

struct ShapeEditor {
    editor: Rc<Editor>,
    gl: OnceCell<GlView>,
    draft: RefCell<ShapeDraft>,
    meshes: RefCell<MeshLibrary>,
    camera: Cell<Option<Camera>>,
    gesture: Cell<Option<Gesture>>,
    status: gtk::Label,
    /// The point the typed fields show and set: picked with Shift and the left button, added,
    /// or the first of a new part.
    point: Cell<Option<VertexRef>>,
    fields: OnceCell<PointFields>,
}

/// The fields of the point being typed: which it is, x, y, z, and a sphere's radius.
struct PointFields {
    which: gtk::Label,
    coordinates: [gtk::Entry; 3],
    radius: gtk::Entry,
}

impl ShapeEditor {
    fn gl(&self) -> &GlView {
        self.gl.get().expect("attached")
    }

    /// Rebuilds the parts' meshes after the draft changed, and draws again.
    fn changed(&self) {
        let draft = self.draft.borrow();
        let mut library = MeshLibrary::new();
        for (i, part) in draft.parts().iter().enumerate() {
            let mesh = match &part.geometry {
                DraftGeometry::Sphere { centre, surface } => {
                    Mesh::sphere((surface - centre).norm().max(1e-6), SPHERE_LEVEL).ok()
                }
                DraftGeometry::Polyhedron { .. } => draft.hull(i).and_then(|hull| {
                    let points: Vec<Point3<f64>> =
                        hull.vertices().iter().map(|v| Point3::from(*v)).collect();
                    let faces: Vec<Vec<usize>> =
                        hull.faces().iter().map(|f| f.vertices.clone()).collect();
                    Mesh::polyhedron(&points, &faces).ok()
                }),
            };
            if let Some(mesh) = mesh {
                let key = MeshKey(i as u64);
                self.gl().replace_mesh(key, mesh.clone());
                library.insert(key, mesh);
            }
        }
        *self.meshes.borrow_mut() = library;
        drop(draft);
        self.show_point();
        self.gl().redraw();
    }

    /// Fills the typed fields with the chosen point's values (and its sphere's radius).
    fn show_point(&self) {
        let Some(fields) = self.fields.get() else {
            return;
        };
        let point = self
            .point
            .get()
            .and_then(|v| Some((v, self.position_of(v)?)));
        for entry in fields.coordinates.iter().chain([&fields.radius]) {
            entry.set_sensitive(point.is_some());
        }
        let Some((v, position)) = point else {
            fields
                .which
                .set_text("Shift+click a vertex to type its position");
            for entry in fields.coordinates.iter().chain([&fields.radius]) {
                entry.set_text("");
            }
            return;
        };
        let radius = self.draft.borrow().radius(v.part);
        let which = match (radius, v.vertex) {
            (Some(_), 0) => format!("Part {}: sphere centre", v.part + 1),
            (Some(_), _) => format!("Part {}: sphere surface point", v.part + 1),
            (None, k) => format!("Part {}: vertex {}", v.part + 1, k + 1),
        };
        fields.which.set_text(&which);
        for (entry, value) in fields.coordinates.iter().zip(position.iter()) {
            entry.set_text(&format!("{value}"));
        }
        fields.radius.set_sensitive(radius.is_some());
        fields
            .radius
            .set_text(&radius.map_or(String::new(), |r| format!("{r}")));
    }

    /// Puts the chosen point where its fields say, and sets its sphere's radius; only fields
    /// whose text was changed are read.
    fn set_point(&self) {
        let (Some(fields), Some(v)) = (self.fields.get(), self.point.get()) else {
            return;
        };
        let Some(position) = self.position_of(v) else {
            return;
        };
        let read = |name: &str, entry: &gtk::Entry, now: f64| -> Result<f64, String> {
            let text = entry.text();
            if text == format!("{now}") {
                return Ok(now);
            }
            text.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("{name}: `{text}` is not a number."))
        };
        let radius_now = self.draft.borrow().radius(v.part);
        let values = (|| {
            let mut to = position;
            for (i, name) in ["x", "y", "z"].into_iter().enumerate() {
                to[i] = read(name, &fields.coordinates[i], position[i])?;
            }
            let radius = match radius_now {
                Some(now) => Some(read("Radius", &fields.radius, now)?),
                None => None,
            };
            Ok::<_, String>((to, radius))
        })();
        let (to, radius) = match values {
            Ok(values) => values,
            Err(message) => return self.say(&message),
        };
        {
            let mut draft = self.draft.borrow_mut();
            if to != position {
                draft.set_vertex(v, to);
            }
            if let (Some(radius), Some(now)) = (radius, radius_now) {
                if radius != now && !draft.set_radius(v.part, radius) {
                    drop(draft);
                    return self.say("Radius: a sphere's radius must be a positive number.");
                }
            }
        }
        self.changed();
        self.say("Set. Apply or Done writes the shape into the text.");
    }

    fn camera(&self, viewport: &Viewport) -> Camera {
        if let Some(camera) = self.camera.get() {
            return camera;
        }
        let points: Vec<Point3<f64>> = self
            .draft
            .borrow()
            .points()
            .iter()
            .map(|(_, p, _)| Point3::from(*p))
            .collect();
        let bounds = Bounds::around(points).unwrap_or(Bounds {
            min: Point3::new(-1.0, -1.0, -1.0),
            max: Point3::new(1.0, 1.0, 1.0),
        });
        let mut camera = Camera {
            rotation: UnitQuaternion::from_axis_angle(&Vector3::x_axis(), 0.35)
                * UnitQuaternion::from_axis_angle(&Vector3::y_axis(), -0.5),
            ..Camera::default()
        };
        camera.fit(&bounds, viewport);
        camera.scale *= 0.8;
        self.camera.set(Some(camera));
        camera
    }

    fn vertex_at(&self, at: Point2<f64>) -> Option<VertexRef> {
        let viewport = self.gl().viewport();
        let camera = self.camera(&viewport);
        let points = self.draft.borrow().points();
        let positions = points.iter().map(|(_, p, _)| Point3::from(*p));
        nearest_on_screen(positions, &camera, &viewport, at, PICK_RADIUS).map(|(i, _)| points[i].0)
    }

    /// The world point under `at` in the plane through `through` parallel to the screen.
    fn under_pointer(&self, at: Point2<f64>, through: Vec3) -> Option<Vec3> {
        let viewport = self.gl().viewport();
        let camera = self.camera(&viewport);
        let ray = pointer_ray(&camera, &viewport, at);
        let normal = camera.view_direction().into_inner();
        let towards = normal.dot(&ray.direction());
        if towards.abs() < 1e-12 {
            return None;
        }
        let t = normal.dot(&(through - ray.origin())) / towards;
        (t > 0.0).then(|| ray.at(t))
    }

    fn position_of(&self, v: VertexRef) -> Option<Vec3> {
        self.draft
            .borrow()
            .points()
            .into_iter()
            .find(|(r, _, _)| *r == v)
            .map(|(_, p, _)| p)
    }

    /// The centre of part `part`'s points, where a new vertex's depth is taken from.
    fn part_centre(&self, part: usize) -> Option<Vec3> {
        let points: Vec<Vec3> = self
            .draft
            .borrow()
            .points()
            .into_iter()
            .filter(|(r, _, _)| r.part == part)
            .map(|(_, p, _)| p)
            .collect();
        (!points.is_empty()).then(|| points.iter().sum::<Vec3>() / points.len() as f64)
    }

    fn press(&self, button: u32, shift: bool, at: Point2<f64>) {
        let gesture = match (button, shift) {
            (LEFT, true) => self.vertex_at(at).map(|v| {
                self.draft.borrow_mut().select(v.part);
                self.point.set(Some(v));
                Gesture::Vertex(v)
            }),
            (MIDDLE, true) => {
                let part = self.draft.borrow().selected();
                let added = part.and_then(|part| {
                    let centre = self.part_centre(part)?;
                    let position = self.under_pointer(at, centre)?;
                    self.draft.borrow_mut().add_vertex(part, position)
                });
                if added.is_none() {
                    self.say("Select a polyhedron (Shift and the left button on one of its vertices) to add vertices to it.");
                } else {
                    self.point.set(added);
                }
                added.map(Gesture::Vertex)
            }
            (RIGHT, true) => {
                if let Some(v) = self.vertex_at(at) {
                    self.draft.borrow_mut().delete_vertex(v);
                    // The places of the vertices after it have changed.
                    self.point.set(None);
                }
                None
            }
            (_, false) => ViewDrag::for_button(button).map(|how| Gesture::View { how, last: at }),
            _ => None,
        };
        self.gesture.set(gesture);
        self.changed();
    }

    fn drag_to(&self, at: Point2<f64>) {
        match self.gesture.get() {
            Some(Gesture::View { how, last }) => {
                let viewport = self.gl().viewport();
                let mut camera = self.camera(&viewport);
                how.apply(&mut camera, last, at, &viewport);
                self.camera.set(Some(camera));
                self.gesture.set(Some(Gesture::View { how, last: at }));
                self.gl().redraw();
            }
            Some(Gesture::Vertex(v)) => {
                let Some(from) = self.position_of(v) else {
                    return;
                };
                if let Some(to) = self.under_pointer(at, from) {
                    self.draft.borrow_mut().move_vertex(v, to);
                    self.changed();
                }
            }
            None => {}
        }
    }

    fn say(&self, message: &str) {
        self.status.set_text(message);
    }

    /// Adds the convex hull of the mesh file at `path` as a polyhedron, or says why not
    /// (`FILE:LINE: error: …`) in a window over `window`, as a scene's errors are, and in the
    /// status line.
    fn import(&self, path: &std::path::Path, window: &gtk::Window) {
        match crate::geom::mesh_file::hull_of_file(path) {
            Ok(hull) => {
                let part = self.draft.borrow_mut().add_vertices(hull.vertices());
                self.point.set(Some(VertexRef { part, vertex: 0 }));
                // Framed again around what is now there.
                self.camera.set(None);
                self.changed();
                self.say(&format!(
                    "Imported the convex hull of {}: {} vertices. Apply writes it.",
                    path.display(),
                    hull.vertices().len()
                ));
            }
            Err(e) => {
                let message = e.to_string();
                self.say(&message);
                if let Some(app) = window.application() {
                    super::show_problem(
                        &app,
                        Some(window),
                        "Problem in the Mesh File",
                        &message,
                        "Nothing was imported. Correct the file, or export it again as OBJ or \
                         STL, and import it again.",
                    );
                }
            }
        }
    }

    /// Writes the shape into the text; returns whether it was written.
    fn apply(&self, name: &str) -> bool {
        let mut draft = self.draft.borrow().clone();
        draft.name = name.trim().to_owned();
        if draft.name.is_empty() || draft.name.contains(char::is_whitespace) {
            self.say("The shape needs a name without blanks.");
            return false;
        }
        let result = {
            let Some(scene) = self.editor.session.scene() else {
                self.say("The text has no evaluated scene: fix it first.");
                return false;
            };
            let text = self.editor.session.text().to_owned();
            write_shape(&text, &scene, &draft.name, &draft.to_parts())
        };
        match result {
            Ok(text) => {
                self.editor.session.set_text(text, None);
                self.say(&format!("Wrote shape_set {}.", draft.name));
                true
            }
            Err(e) => {
                self.say(&e.reason);
                false
            }
        }
    }
}

impl Scenery for ShapeEditor {
    fn with_frame(&self, viewport: &Viewport, draw: &mut dyn FnMut(&MeshLibrary, &Frame)) {
        let camera = self.camera(viewport);
        let draft = self.draft.borrow();
        let meshes = self.meshes.borrow();
        let selected = draft.selected();
        let objects = draft
            .parts()
            .iter()
            .enumerate()
            .filter(|(i, _)| meshes.get(MeshKey(*i as u64)).is_some())
            .map(|(i, part)| {
                let at = match &part.geometry {
                    DraftGeometry::Sphere { centre, .. } => *centre,
                    DraftGeometry::Polyhedron { .. } => Vec3::zeros(),
                };
                Object {
                    mesh: MeshKey(i as u64),
                    pose: Isometry3::translation(at.x, at.y, at.z),
                    offset: Vector3::zeros(),
                    colour: if Some(i) == selected { SELECTED } else { OTHER },
                    selected: false,
                    hovered: false,
                }
            })
            .collect();
        let handles = draft
            .points()
            .into_iter()
            .map(|(_, p, look)| Handle {
                position: Point3::from(p),
                colour: match look {
                    VertexLook::Selected => SELECTED,
                    VertexLook::Other => OTHER,
                    VertexLook::Inside => INSIDE,
                },
                highlighted: false,
            })
            .collect();
        let frame = Frame {
            objects,
            handles,
            ground: Some(Ground {
                origin: Point3::origin(),
                normal: Vector3::y_axis(),
                spacing: 0.5,
                extent: 8.0,
                colour: palette::GROUND,
                line_colour: palette::GRID,
            }),
            looks: Looks {
                gizmo: true,
                ..Looks::ALL
            },
            camera,
            background: palette::BACKGROUND,
            handle_radius: 5.0,
            ..Frame::default()
        };
        draw(&meshes, &frame);
    }
}

/// Opens the shape editor on shape set `shape` of the scene, or on a new shape. When one is
/// open already, it comes to the front instead.
pub fn open(editor: &Rc<Editor>, shape: Option<&str>) {
    if let Some(window) = editor.shape_editor() {
        window.present();
        editor.status("A shape editor is open already: finish that shape first.");
        return;
    }
    let draft = {
        let scene = editor.session.scene();
        match (shape, scene.as_ref()) {
            (Some(name), Some(scene)) => match scene.shape(name) {
                Some(set) => ShapeDraft::from_shape(set),
                None => return editor.status(format!("The scene has no shape {name}.")),
            },
            (_, scene) => ShapeDraft::new(scene.map_or_else(
                || "s1".into(),
                |s| super::scene_text::fresh_name(s, "shape"),
            )),
        }
    };
    let window = editor.window("Shape editor");
    window.set_default_size(640, 560);
    let status = gtk::Label::new(None);
    status.set_xalign(0.0);
    status.set_wrap(true);
    let name = gtk::Entry::new();
    name.set_text(&draft.name);
    let state = Rc::new(ShapeEditor {
        editor: editor.clone(),
        gl: OnceCell::new(),
        draft: RefCell::new(draft),
        meshes: RefCell::new(MeshLibrary::new()),
        camera: Cell::new(None),
        gesture: Cell::new(None),
        status: status.clone(),
        point: Cell::new(None),
        fields: OnceCell::new(),
    });
    // The fields start on the first part's first point (a sphere's centre).
    if !state.draft.borrow().parts().is_empty() {
        state.point.set(Some(VertexRef { part: 0, vertex: 0 }));
    }
    let gl = {
        let scenery: Rc<dyn Scenery> = state.clone();
        let status = status.clone();
        GlView::new(scenery, move |e| {
            status.set_text(&format!("Cannot draw: {e}"))
        })
    };
    let _ = state.gl.set(gl.clone());
    mouse(&state, &gl.area);
    state.changed();

    let parts = gtk::Box::new(gtk::Orientation::Horizontal, 6);
    let add = |label: &str, run: fn(&mut ShapeDraft, Vec3) -> usize| {
        let button = gtk::Button::with_mnemonic(label);
        let state = Rc::downgrade(&state);
        button.connect_clicked(move |_| {
            if let Some(state) = state.upgrade() {
                let centre = state
                    .camera
                    .get()
                    .map_or(Vec3::zeros(), |c| c.centre.coords);
                let part = run(&mut state.draft.borrow_mut(), centre);
                state.point.set(Some(VertexRef { part, vertex: 0 }));
                state.changed();
            }
        });
        parts.append(&button);
    };
    add("New _sphere", |d, c| d.add_sphere(c, 0.5));
    add("New _box", |d, c| d.add_box(c, Vec3::new(1.0, 1.0, 1.0)));
    add("New _polyhedron", |d, c| d.add_polyhedron(c, 1.0));
    let snap = gtk::CheckButton::with_mnemonic("Snap to _grid");
    let spacing = gtk::SpinButton::with_range(0.01, 10.0, 0.05);
    spacing.set_value(0.25);
    {
        let state = Rc::downgrade(&state);
        let spacing_button = spacing.clone();
        let update = move |on: bool| {
            if let Some(state) = state.upgrade() {
                let grid = on.then(|| spacing_button.value());
                state.draft.borrow_mut().set_grid(grid);
            }
        };
        let update = Rc::new(update);
        {
            let update = update.clone();
            snap.connect_toggled(move |check| update(check.is_active()));
        }
        let snap = snap.clone();
        spacing.connect_value_changed(move |_| update(snap.is_active()));
    }
    let import = gtk::Button::with_mnemonic("_Import hull…");
    import.set_tooltip_text(Some(
        "A polyhedron: the convex hull of the vertices of a Wavefront OBJ or STL file",
    ));
    {
        let state = Rc::downgrade(&state);
        let window = window.downgrade();
        import.connect_clicked(move |_| {
            let (Some(state), Some(window)) = (state.upgrade(), window.upgrade()) else {
                return;
            };
            let state = Rc::downgrade(&state);
            let parent = window.downgrade();
            super::files::choose(
                window.upcast_ref(),
                "Import the convex hull of a mesh",
                gtk::FileChooserAction::Open,
                None,
                move |path| {
                    if let (Some(state), Some(window)) = (state.upgrade(), parent.upgrade()) {
                        state.import(&path, window.upcast_ref());
                    }
                },
            );
        });
    }
    parts.append(&import);
    parts.append(&snap);
    parts.append(&spacing);

    let finish = gtk::Box::new(gtk::Orientation::Horizontal, 6);
    finish.append(&gtk::Label::new(Some("Name")));
    finish.append(&name);
    for (label, close, write) in [
        ("_Apply", false, true),
        ("_Done", true, true),
        ("_Cancel", true, false),
    ] {
        let button = gtk::Button::with_mnemonic(label);
        let state = Rc::downgrade(&state);
        let name = name.clone();
        let window = window.downgrade();
        button.connect_clicked(move |_| {
            let (Some(state), Some(window)) = (state.upgrade(), window.upgrade()) else {
                return;
            };
            let written = !write || state.apply(&name.text());
            if close && written {
                window.destroy();
            }
        });
        finish.append(&button);
    }

    let typed = point_fields(&state);
    state.show_point();

    let column = gtk::Box::new(gtk::Orientation::Vertical, 6);
    column.append(&gl.area);
    column.append(&status);
    column.append(&parts);
    column.append(&typed);
    column.append(&finish);
    for row in [&parts, &typed, &finish] {
        row.set_margin_start(6);
        row.set_margin_end(6);
    }
    finish.set_margin_bottom(6);
    window.set_child(Some(&column));
    editor.set_shape_editor(&window);
    state.say("Shift+left drags a vertex, Shift+middle adds one to the selected polyhedron, Shift+right deletes one.");
    window.present();
}

/// The row of typed values: which point, x, y, z, the radius of a sphere, and Set (Enter in
/// a field sets too).
fn point_fields(state: &Rc<ShapeEditor>) -> gtk::Box {
    let row = gtk::Box::new(gtk::Orientation::Horizontal, 4);
    let which = gtk::Label::new(None);
    which.set_width_chars(24);
    which.set_xalign(0.0);
    row.append(&which);
    let apply = {
        let state = Rc::downgrade(state);
        move || {
            if let Some(state) = state.upgrade() {
                state.set_point();
            }
        }
    };
    let field = |label: &str| labelled_entry(&row, label, 7, apply.clone());
    let coordinates = [field("_x"), field("_y"), field("_z")];
    let radius = field("_Radius");
    apply_button(&row, "S_et", apply);
    let _ = state.fields.set(PointFields {
        which,
        coordinates,
        radius,
    });
    row
}

fn mouse(state: &Rc<ShapeEditor>, area: &gtk::GLArea) {
    let drag = gtk::GestureDrag::new();
    drag.set_button(0);
    let start = Rc::new(Cell::new((0.0, 0.0)));
    {
        let state = Rc::downgrade(state);
        let start = start.clone();
        drag.connect_drag_begin(move |gesture, x, y| {
            let Some(state) = state.upgrade() else { return };
            start.set((x, y));
            let shift = gesture
                .current_event_state()
                .contains(gdk::ModifierType::SHIFT_MASK);
            let at = state.gl().picture_point(x, y);
            state.press(gesture.current_button(), shift, at);
        });
    }
    {
        let state = Rc::downgrade(state);
        let start = start.clone();
        drag.connect_drag_update(move |_, dx, dy| {
            if let Some(state) = state.upgrade() {
                let (x, y) = start.get();
                let at = state.gl().picture_point(x + dx, y + dy);
                state.drag_to(at);
            }
        });
    }
    {
        let state = Rc::downgrade(state);
        drag.connect_drag_end(move |_, _, _| {
            if let Some(state) = state.upgrade() {
                state.gesture.set(None);
            }
        });
    }
    area.add_controller(drag);
}
