package io.hybridcache.core.stats;

import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The optional device write trace, replayed by the FTL simulator in {@code bench}: one CSV line per
 * device write or discard, in device order.
 *
 * <pre>
 *  op,device_offset,length,class_id,class_name
 *  W,1073745920,1048576,0,FRESH      a write of length bytes at slot * slotBytes + offset
 *  T,1073741824,67108864,-1,-        a discard (trim) of a whole slot
 * </pre>
 *
 * <p>Thread-safe: methods are synchronized (in practice only the flash writer thread writes to it).
 * An I/O error on the trace is logged by the caller once and disables the trace, never the cache.
 */
public final class WriteTrace implements Closeable {
  private final BufferedWriter out;

  public WriteTrace(Path file) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    this.out = Files.newBufferedWriter(file, StandardCharsets.US_ASCII, StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    if (Files.size(file) == 0) {
      out.write("op,device_offset,length,class_id,class_name\n");
    }
  }

  public synchronized void write(long deviceOffset, long length, int classId, String className) throws IOException {
    out.write("W," + deviceOffset + "," + length + "," + classId + "," + className + "\n");
  }

  public synchronized void trim(long deviceOffset, long length) throws IOException {
    out.write("T," + deviceOffset + "," + length + ",-1,-\n");
  }

  public synchronized void flush() throws IOException {
    out.flush();
  }

  @Override
  public synchronized void close() throws IOException {
    out.close();
  }
}
