package io.hybridcache.core.engine;

import io.hybridcache.core.device.FileModes;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

/**
 * The optional device write trace, replayed by the FTL simulator in {@code bench}: one CSV line per
 * device write or discard, in device order, and one per segment opened with its stream.
 *
 * <pre>
 *  op,device_offset,length,class_id,class_name,stream,mapper_streams
 *  O,1073741824,67108864,0,FRESH,7,single:0;static:7;dsm:3;filestream:2
 *                                    a segment opened (or resumed) in the slot at device_offset:
 *                                    its class, its stream, and the stream each mapper kind chose
 *  W,1073745920,1048576,0,FRESH,7    a write of length bytes at slot * slotBytes + offset, its stream
 *  T,1073741824,67108864,-1,-,-1     a discard (trim) of a whole slot, passed to the device
 *  E,805306368,268435456,0,FRESH,7,written=..;inv_young=..;inv_old=..;foot_young=..;foot_old=..
 *                                    the end of a hotness epoch at this device clock (bytes written
 *                                    since open) of this length: one line per class with its stream
 *                                    (configured mapper) and figures (EpochSample.ClassSample)
 * </pre>
 *
 * <p>A trace file may hold several opens of a cache (appended, e.g. YCSB's load and run JVMs): each
 * open starts with the header line again.
 *
 * <p>Thread-safe: methods are synchronized (writes come under the segment writer's lock).
 * An I/O error on the trace is logged by the caller once and disables the trace, never the cache.
 */
final class WriteTrace implements Closeable {
  private final BufferedWriter out;

  /**
   * Opens {@code file} for appending; a new file is made with {@code permissions} (null: the platform's
   * default), an existing one keeps its own.
   */
  public WriteTrace(Path file, Set<PosixFilePermission> permissions) throws IOException {
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    try {
      Files.createFile(file, FileModes.attributes(permissions));
      FileModes.trySet(file, permissions);
    } catch (FileAlreadyExistsException e) {
      // appended to: keeps its permissions
    }
    this.out = Files.newBufferedWriter(file, StandardCharsets.US_ASCII, StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    out.write(HEADER + "\n");
  }

  /** The first line of every open of a cache. */
  public static final String HEADER = "op,device_offset,length,class_id,class_name,stream,mapper_streams";

  /** A segment opened in the slot at {@code deviceOffset}; {@code mapperStreams} may be null. */
  public synchronized void open(long deviceOffset, long length, int classId, String className, int stream,
      String mapperStreams) throws IOException {
    out.write("O," + deviceOffset + "," + length + "," + classId + "," + className + "," + stream
        + (mapperStreams == null ? "" : "," + mapperStreams) + "\n");
  }

  public synchronized void write(long deviceOffset, long length, int classId, String className, int stream)
      throws IOException {
    out.write("W," + deviceOffset + "," + length + "," + classId + "," + className + "," + stream + "\n");
  }

  /** One class's figures at the end of a hotness epoch. */
  public synchronized void epoch(long clock, long epochBytes, int classId, String className, int stream,
      String figures) throws IOException {
    out.write("E," + clock + "," + epochBytes + "," + classId + "," + className + "," + stream + "," + figures + "\n");
  }

  public synchronized void trim(long deviceOffset, long length) throws IOException {
    out.write("T," + deviceOffset + "," + length + ",-1,-,-1\n");
  }

  public synchronized void flush() throws IOException {
    out.flush();
  }

  @Override
  public synchronized void close() throws IOException {
    out.close();
  }
}
