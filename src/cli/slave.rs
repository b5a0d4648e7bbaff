//! `asgard slave --dbus-fd N | --session-bus`: serve one animation subdocument to a host.

use asgard::ipc::transport::inherited_socket;
use asgard::slave::{self, Bus};
use clap::Args;
use std::process::ExitCode;

#[derive(Args)]
#[group(required = true, multiple = false)]
pub struct SlaveArgs {
    /// The inherited socket of a private D-Bus connection to the host (the slave is its server).
    #[arg(long, value_name = "N")]
    dbus_fd: Option<i32>,
    /// Serve on the session bus as org.asgard.Asgard1.Slave<PID>, for tools. Only the process
    /// that started the slave, and connections of the same user that call
    /// org.asgard.SessionAccess1.Authenticate with the token printed at start-up (the first
    /// line of standard output: "BUS_NAME TOKEN"), are answered.
    #[arg(long)]
    session_bus: bool,
}

pub fn run(args: SlaveArgs) -> ExitCode {
    let bus = match args.dbus_fd {
        Some(fd) => match inherited_socket(fd) {
            Ok(stream) => Bus::Peer(stream),
            Err(e) => {
                eprintln!("asgard slave: {e}");
                return ExitCode::from(2);
            }
        },
        None => Bus::Session,
    };
    match slave::run(bus) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("asgard slave: {e}");
            ExitCode::FAILURE
        }
    }
}
