//! The vertices of a triangle mesh file — Wavefront OBJ, ASCII STL or binary STL — for the
//! shape editor's import, which makes a polyhedron of their convex hull ([`hull_of_file`]).
//! Only the points matter: faces, normals, texture coordinates, groups and materials are
//! skipped, since the hull is decided by the vertices alone.
//!
//! Limits are checked before the work they bound: the file's size from its metadata before a
//! byte is read ([`MAX_FILE_BYTES`]), and the vertex count ([`MAX_VERTICES`]) from a binary
//! STL's header before its triangles, or as a text file's vertices are read. A line that
//! cannot be read is an error located at its line (`FILE:LINE: error: …`).

use super::{ConvexHull, GeomError};
use nalgebra::Vector3;
use std::fmt;
use std::path::{Path, PathBuf};

/// The largest mesh file read: 64 MiB.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// The most vertices read from one file (an STL triangle has three).
pub const MAX_VERTICES: usize = 1_000_000;

/// Why a mesh file gave no points, located in the file where a line is at fault.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshFileError {
    pub path: PathBuf,
    /// The line at fault (from 1), for text files.
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for MeshFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: error: {}", self.path.display(), self.message),
            None => write!(f, "{}: error: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for MeshFileError {}

/// The convex hull of the vertices of the mesh file at `path`.
pub fn hull_of_file(path: &Path) -> Result<ConvexHull, MeshFileError> {
    let points = read_points(path)?;
    ConvexHull::new(&points).map_err(|e| MeshFileError {
        path: path.to_owned(),
        line: None,
        message: match e {
            GeomError::TooFewPoints { count } => format!(
                "the file has {count} vertices; a solid needs at least 4 that are not in one plane"
            ),
            other => format!("its vertices make no solid: {other}"),
        },
    })
}

/// The vertices of the OBJ (`.obj`) or STL (`.stl`, ASCII or binary) file at `path`.
pub fn read_points(path: &Path) -> Result<Vec<Vector3<f64>>, MeshFileError> {
    let fail = |line: Option<usize>, message: String| MeshFileError {
        path: path.to_owned(),
        line,
        message,
    };
    let kind = match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("obj") => Kind::Obj,
        Some("stl") => Kind::Stl,
        _ => {
            return Err(fail(
                None,
                "not a mesh file; expected a Wavefront OBJ (.obj) or STL (.stl) file".into(),
            ))
        }
    };
    let metadata = std::fs::metadata(path).map_err(|e| fail(None, e.to_string()))?;
    if !metadata.is_file() {
        return Err(fail(
            None,
            "not a regular file; expected a mesh file".into(),
        ));
    }
    if metadata.len() > MAX_FILE_BYTES {
        return Err(fail(
            None,
            format!(
                "the file has {} bytes, more than the mesh file limit of {MAX_FILE_BYTES} bytes",
                metadata.len()
            ),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| fail(None, e.to_string()))?;
    parse(kind, &bytes).map_err(|(line, message)| fail(line, message))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Obj,
    Stl,
}

/// A failure: the line at fault, if any, and what is wrong.
type Failure = (Option<usize>, String);

fn parse(kind: Kind, bytes: &[u8]) -> Result<Vec<Vector3<f64>>, Failure> {
    match kind {
        Kind::Obj => parse_text(bytes, "v"),
        Kind::Stl => match binary_stl_triangles(bytes) {
            Some(triangles) => parse_binary_stl(bytes, triangles),
            None if bytes.trim_ascii_start().starts_with(b"solid") => parse_text(bytes, "vertex"),
            None => Err((
                None,
                format!(
                    "neither an ASCII STL (which starts with `solid`) nor a binary STL (whose \
                     size is 84 bytes plus 50 per triangle its header counts; this one has {} \
                     bytes)",
                    bytes.len()
                ),
            )),
        },
    }
}

/// The triangle count of a binary STL, when the file's size is exactly what its header says.
/// (An ASCII STL starts with `solid`, but so may a binary one's free 80-byte header.)
fn binary_stl_triangles(bytes: &[u8]) -> Option<usize> {
    let count = u32::from_le_bytes(bytes.get(80..84)?.try_into().ok()?) as usize;
    (bytes.len() as u64 == 84 + 50 * count as u64).then_some(count)
}

fn parse_binary_stl(bytes: &[u8], triangles: usize) -> Result<Vec<Vector3<f64>>, Failure> {
    if triangles.saturating_mul(3) > MAX_VERTICES {
        return Err((
            None,
            format!(
                "the binary STL has {triangles} triangles ({} vertices), more than the limit \
                 of {MAX_VERTICES} vertices",
                triangles.saturating_mul(3)
            ),
        ));
    }
    let mut points = Vec::with_capacity(triangles * 3);
    for (t, record) in bytes[84..].chunks_exact(50).enumerate() {
        // A normal (12 bytes), three vertices of three little-endian f32s, two spare bytes.
        for v in 0..3 {
            let at = 12 + 12 * v;
            let coordinate = |i: usize| {
                let start = at + 4 * i;
                f64::from(f32::from_le_bytes(
                    record[start..start + 4].try_into().expect("four bytes"),
                ))
            };
            let point = Vector3::new(coordinate(0), coordinate(1), coordinate(2));
            if !point.iter().all(|c| c.is_finite()) {
                return Err((
                    None,
                    format!(
                        "triangle {} has a vertex that is not a finite number",
                        t + 1
                    ),
                ));
            }
            points.push(point);
        }
    }
    Ok(points)
}

/// The points of a text file: every line whose first word is `keyword` (`v` in OBJ, `vertex`
/// in ASCII STL) gives one, from the three numbers after it (OBJ's optional fourth, the
/// weight, is allowed and ignored). Other lines are skipped.
fn parse_text(bytes: &[u8], keyword: &str) -> Result<Vec<Vector3<f64>>, Failure> {
    let mut points = Vec::new();
    for (index, line) in bytes.split(|&b| b == b'\n').enumerate() {
        let number = index + 1;
        let line = std::str::from_utf8(line)
            .map_err(|_| (Some(number), "the line is not UTF-8 text".to_string()))?;
        let mut words = line.split_ascii_whitespace();
        if words.next() != Some(keyword) {
            continue;
        }
        if points.len() == MAX_VERTICES {
            return Err((
                Some(number),
                format!("more than the limit of {MAX_VERTICES} vertices"),
            ));
        }
        let numbers: Vec<&str> = words.collect();
        let allowed = if keyword == "v" { 3..=4 } else { 3..=3 };
        if !allowed.contains(&numbers.len()) {
            return Err((
                Some(number),
                format!(
                    "`{keyword}` with {} numbers; expected `{keyword} X Y Z`",
                    numbers.len()
                ),
            ));
        }
        let mut coordinates = [0.0; 3];
        for (slot, word) in coordinates.iter_mut().zip(&numbers) {
            *slot = word
                .parse::<f64>()
                .ok()
                .filter(|c| c.is_finite())
                .ok_or_else(|| {
                    (
                        Some(number),
                        format!("`{word}` is not a finite number; expected `{keyword} X Y Z`"),
                    )
                })?;
        }
        points.push(Vector3::from(coordinates));
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CUBE_OBJ: &str = "# a unit cube and a point inside it\n\
        o cube\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 0 0 1\nv 1 0 1\nv 0 1 1\nv 1 1 1 1.0\n\
        v 0.5 0.5 0.5\nvn 0 0 1\nf 1 2 3\n";

    #[test]
    fn obj_vertices_are_read_and_the_rest_skipped() {
        let points = parse(Kind::Obj, CUBE_OBJ.as_bytes()).unwrap();
        assert_eq!(points.len(), 9);
        assert_eq!(points[7], Vector3::new(1.0, 1.0, 1.0));
    }

    #[test]
    fn a_bad_obj_line_is_located() {
        let text = "v 0 0 0\n\nv 1 x 0\n";
        assert_eq!(
            parse(Kind::Obj, text.as_bytes()).unwrap_err(),
            (
                Some(3),
                "`x` is not a finite number; expected `v X Y Z`".to_string()
            )
        );
        let (line, message) = parse(Kind::Obj, b"v 1 2\n").unwrap_err();
        assert_eq!(line, Some(1));
        assert!(message.contains("with 2 numbers"), "{message}");
        let (line, _) = parse(Kind::Obj, b"v 1 2 3\nv inf 0 0\n").unwrap_err();
        assert_eq!(line, Some(2));
        let (line, message) = parse(Kind::Obj, b"v 1 2 3\n\xff\n").unwrap_err();
        assert_eq!(
            (line, message.as_str()),
            (Some(2), "the line is not UTF-8 text")
        );
    }

    #[test]
    fn ascii_and_binary_stl_give_the_triangles_vertices() {
        let ascii = "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n\
                     vertex 0 1 0\nendloop\nendfacet\nendsolid t\n";
        let points = parse(Kind::Stl, ascii.as_bytes()).unwrap();
        assert_eq!(points.len(), 3);
        assert_eq!(points[1], Vector3::new(1.0, 0.0, 0.0));

        // A binary STL whose header starts with "solid", as some writers make them.
        let mut binary = b"solid but binary".to_vec();
        binary.resize(80, 0);
        binary.extend(2u32.to_le_bytes());
        for t in 0..2 {
            binary.extend([0u8; 12]);
            for v in 0..9 {
                binary.extend(((t * 9 + v) as f32).to_le_bytes());
            }
            binary.extend([0u8; 2]);
        }
        let points = parse(Kind::Stl, &binary).unwrap();
        assert_eq!(points.len(), 6);
        assert_eq!(points[5], Vector3::new(15.0, 16.0, 17.0));

        // A truncated binary file that does not start with "solid".
        let (line, message) = parse(Kind::Stl, &binary[5..100]).unwrap_err();
        assert_eq!(line, None);
        assert!(message.contains("binary STL"), "{message}");
    }

    #[test]
    fn the_vertex_limit_is_checked_before_the_triangles_are_read() {
        let mut header = vec![0u8; 80];
        let triangles = (MAX_VERTICES / 3 + 1) as u32;
        header.extend(triangles.to_le_bytes());
        let (_, message) = parse_binary_stl(&header, triangles as usize).unwrap_err();
        assert!(message.contains("more than the limit"), "{message}");
    }

    #[test]
    fn files_are_checked_by_name_kind_and_size_and_their_hull_taken() {
        let dir = tempfile::tempdir().unwrap();
        let cube = dir.path().join("cube.OBJ");
        std::fs::write(&cube, CUBE_OBJ).unwrap();
        let hull = hull_of_file(&cube).unwrap();
        assert_eq!(
            hull.vertices().len(),
            8,
            "the inner point is not on the hull"
        );

        let flat = dir.path().join("flat.obj");
        std::fs::write(&flat, "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n").unwrap();
        let e = hull_of_file(&flat).unwrap_err();
        assert!(e
            .to_string()
            .starts_with(&format!("{}: error: ", flat.display())));

        let other = dir.path().join("cube.ply");
        std::fs::write(&other, CUBE_OBJ).unwrap();
        assert!(read_points(&other).unwrap_err().message.contains(".obj"));

        let big = dir.path().join("big.stl");
        let file = std::fs::File::create(&big).unwrap();
        file.set_len(MAX_FILE_BYTES + 1).unwrap();
        let e = read_points(&big).unwrap_err();
        assert!(e.message.contains("mesh file limit"), "{e}");

        let bad = dir.path().join("bad.obj");
        std::fs::write(&bad, "v 0 0 0\nv 1 0\n").unwrap();
        assert_eq!(
            read_points(&bad).unwrap_err().to_string(),
            format!(
                "{}:2: error: `v` with 2 numbers; expected `v X Y Z`",
                bad.display()
            )
        );
    }
}
