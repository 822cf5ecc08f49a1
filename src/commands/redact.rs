use crate::cli::RedactArgs;
use crate::error::Result;

pub fn run(_args: RedactArgs) -> Result<u8> {
    Err(super::not_available("redact"))
}
