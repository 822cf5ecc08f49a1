use crate::cli::DoctorArgs;
use crate::error::Result;

pub fn run(_args: DoctorArgs) -> Result<u8> {
    Err(super::not_available("doctor"))
}
