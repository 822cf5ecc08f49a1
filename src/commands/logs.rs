use crate::cli::LogsArgs;
use crate::error::Result;

pub fn run(_args: LogsArgs) -> Result<u8> {
    Err(super::not_available("logs"))
}
