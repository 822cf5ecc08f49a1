use crate::cli::LaunchArgs;
use crate::error::Result;

pub fn run(_args: LaunchArgs) -> Result<u8> {
    Err(super::not_available("launch"))
}
