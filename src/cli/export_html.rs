//! `asgard export FILE --format html -o DIR`: a scene or a compound document as a web page,
//! `DIR/index.html`, that plays each animation's computed motion in any browser (see
//! `asgard::web`).
//!
//! A file whose first character (after a byte-order mark and white space) is `<` is read as
//! a document, anything else as a scene. A document's animations are simulated one after the
//! other, each within the run limits, and their errors are reported at their line and column
//! in the document. DIR is made when it does not exist (and removed again if the export
//! fails); `index.html` is written atomically, and a read-only one is refused before any work
//! unless `--force` is given.

use super::export::ExportArgs;
use super::scene_file::{check_output_folder, Origin, SceneFile};
use asgard::doc::{Document, LoadError, PresentationSize};
use asgard::save::{self, AtomicFile, ReadOnly};
use asgard::web::{self, Animation};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The page's file name in the output folder.
const PAGE: &str = "index.html";

pub fn export(args: &ExportArgs) -> Result<(), String> {
    let name = args.file.display().to_string();
    if args.time.is_some() {
        return Err(format!(
            "{name}: error: --time does not apply to a web page, which plays the whole motion"
        ));
    }
    let is_document = starts_with_markup(&args.file)
        .map_err(|e| format!("{name}: error: cannot read the file: {e}"))?;
    let folder = OutputFolder::make(&args.output)?;
    let page = folder.page();
    let options = save::Options::OUTPUT.with_read_only(ReadOnly::replace_if(args.force));
    let output = AtomicFile::create(&page, options).map_err(|e| super::write_error(&page, &e))?;
    // The page's title when the document has none, or the scene's.
    let title = args
        .file
        .file_name()
        .map_or_else(|| name.clone(), |file| file.to_string_lossy().into_owned());
    let html = if is_document {
        document(args, &name, &title)?
    } else {
        let file = SceneFile::load(&args.file)?;
        scene_animation(args, &file, args.picture.size)
            .map(|animation| web::scene_page(&title, &animation))?
    };
    let mut output = output;
    output
        .write_all(html.as_bytes())
        .and_then(|()| output.commit())
        .map_err(|e| super::write_error(&page, &e))?;
    folder.keep();
    Ok(())
}

/// True when the file's first character after a byte-order mark and white space is `<`. Only
/// a regular file is opened (a FIFO would block, a device never end).
fn starts_with_markup(path: &Path) -> io::Result<bool> {
    if !std::fs::metadata(path)?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file; expected a scene or a document",
        ));
    }
    let mut head = Vec::new();
    std::fs::File::open(path)?
        .take(4096)
        .read_to_end(&mut head)?;
    let head = head.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&head);
    Ok(head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'<'))
}

/// The page of the document at `args.file` (called `name` in messages), each animation at the
/// size it asks for.
fn document(args: &ExportArgs, name: &str, title: &str) -> Result<String, String> {
    let document = Document::load_limited(&args.file, args.max_size).map_err(|e| match e {
        LoadError::Doc(e) => format!("{name}:{}: error: {}", e.at, e.kind),
        LoadError::Io(e) if e.kind() == io::ErrorKind::FileTooLarge => {
            format!("{name}: error: {e}; --max-size BYTES raises it")
        }
        LoadError::Io(e) => format!("{name}: error: {e}"),
    })?;
    let document = Rc::new(document);
    let mut animations = Vec::new();
    for (index, sub) in document.subdocuments().iter().enumerate() {
        let origin = Origin::Subdocument(document.clone(), index);
        let file = SceneFile::evaluate(name.to_string(), sub.scene.clone(), origin)?;
        let size = sub.size.unwrap_or(PresentationSize::DEFAULT);
        animations.push(scene_animation(args, &file, (size.width, size.height))?);
    }
    Ok(web::document_page(&document, title, &animations))
}

/// The scene's whole motion as a page's animation of `size` pixels.
fn scene_animation(
    args: &ExportArgs,
    file: &SceneFile,
    size: (u32, u32),
) -> Result<Animation, String> {
    let (_, finish) = file.time_range();
    let motion = file.simulate(finish, args.limits.limits())?;
    let animation = Animation::new(&file.scene, &file.frames, &motion, size)
        .map_err(|e| format!("{}: error: {e}", file.name))?;
    if let Some(times) = animation.thinned_from {
        eprintln!(
            "{}: warning: the motion has {times} sample times; the page shows it at {} evenly \
             spaced times, to keep within {} numbers per animation",
            file.name,
            animation.samples,
            web::MAX_NUMBERS
        );
    }
    Ok(animation)
}

/// The folder the page goes into, made for this export if it was not there: it is removed
/// again unless the export keeps it, so a failed export leaves nothing behind.
struct OutputFolder {
    path: PathBuf,
    made: bool,
}

impl OutputFolder {
    fn make(path: &Path) -> Result<OutputFolder, String> {
        let shown = path.display();
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_dir() => Ok(OutputFolder {
                path: path.to_path_buf(),
                made: false,
            }),
            Ok(_) => Err(format!(
                "{shown}: error: not a folder; --format html writes a folder holding {PAGE}"
            )),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                check_output_folder(path)?;
                std::fs::create_dir(path)
                    .map_err(|e| format!("{shown}: error: cannot make the folder: {e}"))?;
                Ok(OutputFolder {
                    path: path.to_path_buf(),
                    made: true,
                })
            }
            Err(e) => Err(format!("{shown}: error: {e}")),
        }
    }

    fn page(&self) -> PathBuf {
        self.path.join(PAGE)
    }

    fn keep(mut self) {
        self.made = false;
    }
}

impl Drop for OutputFolder {
    fn drop(&mut self) {
        if self.made {
            // Only an empty folder goes: anything in it is not ours to remove.
            let _ = std::fs::remove_dir(&self.path);
        }
    }
}
