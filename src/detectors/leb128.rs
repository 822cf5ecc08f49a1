//! The numbers of the build's pattern encodings (`hir_code`, `nfa_code`): LEB128, seven bits
//! a byte, lowest first, the high bit set on every byte but the last.

/// Appends `value` to `out` (build.rs writes; the binary only reads).
#[allow(dead_code)]
pub fn push(mut value: u32, out: &mut Vec<u8>) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// An encoding being read, front to back; every read is `None` past its end.
pub struct Bytes<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    pub fn new(bytes: &'a [u8]) -> Bytes<'a> {
        Bytes { bytes, at: 0 }
    }

    pub fn byte(&mut self) -> Option<u8> {
        let byte = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(byte)
    }

    pub fn number(&mut self) -> Option<u32> {
        let mut value = 0u32;
        for shift in (0..32).step_by(7) {
            let byte = self.byte()?;
            value |= u32::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }

    pub fn take(&mut self, len: usize) -> Option<&'a [u8]> {
        let taken = self.bytes.get(self.at..self.at.checked_add(len)?)?;
        self.at += len;
        Some(taken)
    }

    /// Whether every byte was read: an encoding with bytes left over is no encoding.
    pub fn is_done(&self) -> bool {
        self.at == self.bytes.len()
    }
}
