//! Reading the protobuf wire format: a message's fields in order, each its number and its value
//! (a varint, a fixed64 or a length-delimited payload). Anything this does not read (a group, a
//! fixed32, a truncated or overlong value) ends the reading with `None`: the callers then leave
//! the message to protobuf itself.

/// One field's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value<'a> {
    Varint(u64),
    Fixed64(u64),
    Bytes(&'a [u8]),
}

/// The fields of one message, in order.
pub struct Fields<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Fields<'a> {
    pub fn new(data: &'a [u8]) -> Fields<'a> {
        Fields { data, at: 0 }
    }

    fn varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let byte = *self.data.get(self.at)?;
            self.at += 1;
            if shift == 63 && byte > 1 {
                return None; // past 64 bits
            }
            value |= u64::from(byte & 0x7F) << shift;
            if byte < 0x80 {
                return Some(value);
            }
        }
        None
    }

    /// The next field (`Some(None)` at the end), or `None` for what this does not read.
    pub fn next_field(&mut self) -> Option<Option<(u32, Value<'a>)>> {
        if self.at >= self.data.len() {
            return Some(None);
        }
        let key = self.varint()?;
        let number = u32::try_from(key >> 3).ok().filter(|&n| n > 0)?;
        let value = match key & 7 {
            0 => Value::Varint(self.varint()?),
            1 => {
                let bytes = self.data.get(self.at..self.at + 8)?;
                self.at += 8;
                Value::Fixed64(u64::from_le_bytes(bytes.try_into().ok()?))
            }
            2 => {
                let length = usize::try_from(self.varint()?).ok()?;
                let end = self.at.checked_add(length)?;
                let bytes = self.data.get(self.at..end)?;
                self.at = end;
                Value::Bytes(bytes)
            }
            _ => return None,
        };
        Some(Some((number, value)))
    }
}

/// A varint as protobuf reads an int32 (or an enum): its low 32 bits, signed.
pub fn int32(value: u64) -> i64 {
    i64::from(value as u32 as i32)
}

/// The values of a packed repeated int32 field.
pub fn packed_int32(payload: &[u8]) -> Option<Vec<i64>> {
    let mut reader = Fields::new(payload);
    let mut values = Vec::new();
    while reader.at < payload.len() {
        values.push(int32(reader.varint()?));
    }
    Some(values)
}
