use crate::cli::HookCommand;
use crate::error::Result;

pub fn run(_hook: HookCommand) -> Result<u8> {
    Err(super::not_available("hook"))
}
