use crate::cli::SelfUpdateArgs;
use crate::error::Result;

pub fn run(_args: SelfUpdateArgs) -> Result<u8> {
    Err(super::not_available("self-update"))
}
