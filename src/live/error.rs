//! Why a driver could not run.

use std::fmt;

/// What a module's `init` reports when it cannot start.
pub type ModuleError = Box<dyn std::error::Error + Send + Sync>;

#[derive(Debug)]
pub enum LiveError {
    /// A timestep of zero would take infinitely many steps.
    ZeroTimestep,
    /// A module failed to initialise; the modules initialised before it were shut down again.
    Init { module: String, source: ModuleError },
}

impl fmt::Display for LiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LiveError::ZeroTimestep => write!(f, "the timestep must be longer than zero"),
            LiveError::Init { module, source } => {
                write!(f, "module `{module}` could not start: {source}")
            }
        }
    }
}

impl std::error::Error for LiveError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LiveError::ZeroTimestep => None,
            LiveError::Init { source, .. } => Some(source.as_ref()),
        }
    }
}
