import { randomFillSync } from 'node:crypto'

/*
 * Random (version 4) UUIDs as one flat string each, for the X-Request-Id of every request. Node's randomUUID()
 * joins its text from 20 pieces: a tree of some 19 cons strings (about 600 bytes, in V8's sampling heap profile
 * of W2) that every holder of the id keeps, and the journal holds the ids of a partner's newest 200 requests,
 * which each young-generation collection copies. Written byte by byte into a buffer and read out once, an id
 * is one 36-character string (56 bytes). The random bytes are drawn from the same source as randomUUID's
 * (the operating system's CSPRNG), a batch at a time as randomUUID does.
 */
const IDS_PER_BATCH = 256
const random = Buffer.allocUnsafeSlow(16 * IDS_PER_BATCH)
let used = IDS_PER_BATCH
const text = Buffer.allocUnsafeSlow(36)
const HEX = Buffer.from('0123456789abcdef', 'latin1')
const DASH = 0x2d

export function randomUuid (): string {
  if (used === IDS_PER_BATCH) {
    randomFillSync(random)
    used = 0
  }
  const at = used++ * 16
  // RFC 9562: version 4 in the high nibble of byte 6, variant 10 in the top bits of byte 8
  random[at + 6] = (random[at + 6] & 0x0f) | 0x40
  random[at + 8] = (random[at + 8] & 0x3f) | 0x80
  let j = 0
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) text[j++] = DASH
    const b = random[at + i]
    text[j++] = HEX[b >> 4]
    text[j++] = HEX[b & 0x0f]
  }
  return text.toString('latin1', 0, 36)
}
