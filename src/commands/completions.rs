use crate::cli::CompletionsArgs;
use crate::error::Result;

pub fn run(_args: CompletionsArgs) -> Result<u8> {
    Err(super::not_available("completions"))
}
