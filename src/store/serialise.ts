import { open, rename, type FileHandle } from 'node:fs/promises'
import { dirname } from 'node:path'
import { LISTS } from './partner-log.js'
import type { FrozenPartner } from './partner-view.js'
import type { PartnerSnapshot } from './records.js'

/** The whole of a partner's data as one text (the tests compare partners by it). */
export function serialise (p: PartnerSnapshot): string {
  return `${JSON.stringify(p)}\n`
}

/** Writes every byte at position (a write may take fewer bytes than asked). */
export async function writeAll (handle: FileHandle, bytes: Buffer, position: number, path: string): Promise<number> {
  for (let done = 0; done < bytes.length;) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, position + done)
    if (bytesWritten === 0) throw new Error(`could not write ${path}`)
    done += bytesWritten
  }
  return position + bytes.length
}

/**
 * fsync of a directory: a rename or a new file is on disk only once its directory is (without it a power
 * cut could bring back the previous state). Windows cannot open a directory, and some file systems refuse
 * to sync one; there it stays as durable as the system makes it.
 */
export async function syncDirectory (dir: string): Promise<void> {
  if (process.platform === 'win32') return
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } catch (err) {
    if (!['EINVAL', 'EISDIR', 'EPERM', 'ENOTSUP'].includes((err as NodeJS.ErrnoException).code ?? '')) throw err
  } finally {
    await handle.close()
  }
}

// A snapshot is encoded and written a megabyte at a time: between two pieces the event loop answers
// requests (a large partner's snapshot is tens of megabytes).
const PIECE = 1 << 20

/**
 * The partner's snapshot file (a lowdb JSON file: the partner's data plus `logFrom`, the first log
 * generation it does not hold), written atomically: temporary file, fsync, rename, directory fsync.
 * Returns its size.
 */
export async function writeSnapshot (path: string, frozen: FrozenPartner, logFrom: number): Promise<number> {
  const tmp = `${path}.${process.pid}.tmp`
  const handle = await open(tmp, 'w', 0o600)
  let size = 0
  try {
    let text = `${frozen.metaJson.slice(0, -1)},"logFrom":${logFrom},"agents":[`
    const flush = async (): Promise<void> => {
      size = await writeAll(handle, Buffer.from(text), size, path)
      text = ''
    }
    for (const [i, agent] of frozen.agents.entries()) {
      text += `${i > 0 ? ',' : ''}${agent.headJson.slice(0, -1)}`
      for (const name of LISTS) {
        text += `,"${name}":[`
        const records = agent.lists[name]
        for (let j = 0; j < records.length; j++) {
          text += j > 0 ? `,${JSON.stringify(records[j])}` : JSON.stringify(records[j])
          if (text.length >= PIECE) await flush()
        }
        text += ']'
      }
      text += '}'
    }
    text += ']}\n'
    await flush()
    await handle.datasync()
  } finally {
    await handle.close()
  }
  await rename(tmp, path)
  await syncDirectory(dirname(path))
  return size
}
