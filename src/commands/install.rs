use crate::cli::InstallArgs;
use crate::error::Result;

pub fn run_install(_args: InstallArgs) -> Result<u8> {
    Err(super::not_available("install"))
}

pub fn run_uninstall(_args: InstallArgs) -> Result<u8> {
    Err(super::not_available("uninstall"))
}
