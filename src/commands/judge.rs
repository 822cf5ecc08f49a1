use crate::cli::JudgeArgs;
use crate::error::Result;

pub fn run(_args: JudgeArgs) -> Result<u8> {
    Err(super::not_available("judge"))
}
