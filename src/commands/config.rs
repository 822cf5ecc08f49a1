use crate::cli::ConfigCommand;
use crate::error::Result;

pub fn run(_cmd: ConfigCommand) -> Result<u8> {
    Err(super::not_available("config"))
}
