//! Just enough of Kafka's protocol to rewrite record values in Produce requests
//! (versions 3 to 8, record batches of magic 2), in place.

const PRODUCE: i16 = 0;

/// Rewrite every record value of every whole Produce request in `data`.
/// Ok(false): the last request is not complete yet (nothing was changed).
pub fn rewrite_values(data: &mut [u8], rewrite: impl Fn(&mut [u8])) -> Result<bool, String> {
    let mut at = 0;
    let mut frames = Vec::new();
    while at < data.len() {
        let size = be_i32(data, at)? as usize;
        if at + 4 + size > data.len() {
            return Ok(false);
        }
        frames.push((at + 4, at + 4 + size));
        at += 4 + size;
    }
    for (start, end) in frames {
        rewrite_request(&mut data[start..end], &rewrite)?;
    }
    Ok(true)
}

fn rewrite_request(frame: &mut [u8], rewrite: &impl Fn(&mut [u8])) -> Result<(), String> {
    let api_key = be_i16(frame, 0)?;
    let version = be_i16(frame, 2)?;
    if api_key != PRODUCE {
        return Ok(()); // other requests pass through untouched
    }
    if !(3..=8).contains(&version) {
        return Err(format!("Produce request version {version} is not supported"));
    }
    let mut at = 8;
    at = skip_string(frame, at)?; // client id
    at = skip_string(frame, at)?; // transactional id
    at += 2 + 4; // acks, timeout
    let topics = be_i32(frame, at)?;
    at += 4;
    for _ in 0..topics {
        at = skip_string(frame, at)?;
        let partitions = be_i32(frame, at)?;
        at += 4;
        for _ in 0..partitions {
            at += 4; // partition index
            let size = be_i32(frame, at)?;
            at += 4;
            if size < 0 {
                continue;
            }
            let end = at + size as usize;
            let records = frame.get_mut(at..end).ok_or("records run past the request")?;
            rewrite_batches(records, rewrite)?;
            at = end;
        }
    }
    Ok(())
}

fn rewrite_batches(records: &mut [u8], rewrite: &impl Fn(&mut [u8])) -> Result<(), String> {
    let mut at = 0;
    while at < records.len() {
        let length = be_i32(records, at + 8)? as usize;
        let end = at + 12 + length;
        let batch = records.get_mut(at..end).ok_or("record batch runs past its records")?;
        if batch.get(16) != Some(&2) {
            return Err("record batch magic is not 2".into());
        }
        let count = be_i32(batch, 57)?;
        let mut pos = 61;
        for _ in 0..count {
            let (length, size) = varint(batch, pos)?;
            let record_end = pos + size + length as usize;
            pos += size + 1; // attributes
            pos += varint(batch, pos)?.1; // timestamp delta
            pos += varint(batch, pos)?.1; // offset delta
            let (key_length, size) = varint(batch, pos)?;
            pos += size + key_length.max(0) as usize;
            let (value_length, size) = varint(batch, pos)?;
            pos += size;
            if value_length > 0 {
                let value_end = pos + value_length as usize;
                rewrite(batch.get_mut(pos..value_end).ok_or("value runs past its batch")?);
            }
            pos = record_end;
        }
        let crc = crc32c::crc32c(&batch[21..]);
        batch[17..21].copy_from_slice(&crc.to_be_bytes());
        at = end;
    }
    Ok(())
}

fn skip_string(data: &[u8], at: usize) -> Result<usize, String> {
    Ok(at + 2 + be_i16(data, at)?.max(0) as usize)
}

fn be_i16(data: &[u8], at: usize) -> Result<i16, String> {
    let bytes = data.get(at..at + 2).ok_or("truncated request")?;
    Ok(i16::from_be_bytes([bytes[0], bytes[1]]))
}

fn be_i32(data: &[u8], at: usize) -> Result<i32, String> {
    let bytes = data.get(at..at + 4).ok_or("truncated request")?;
    Ok(i32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

/// A zigzag varint at `at`: (value, bytes it took).
fn varint(data: &[u8], at: usize) -> Result<(i64, usize), String> {
    let mut value: u64 = 0;
    for i in 0..10 {
        let byte = *data.get(at + i).ok_or("truncated varint")?;
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok((((value >> 1) as i64) ^ -((value & 1) as i64), i + 1));
        }
    }
    Err("varint longer than ten bytes".into())
}
