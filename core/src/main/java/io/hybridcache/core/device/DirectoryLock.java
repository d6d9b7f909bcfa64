package io.hybridcache.core.device;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Exclusive use of a cache directory while a cache has it open: an OS lock ({@link FileChannel#tryLock})
 * on the file {@value #FILE} in it, taken before anything else in the directory is read (its names
 * are listed once before, so that a foreign directory is refused without a lock file), deleted or
 * written, and released at the very end of close. Thread-safe: {@link #acquire} and {@link #close}
 * synchronize on the registry of held locks.
 *
 * <p>Design note.
 *
 * <ul>
 *   <li>The OS lock excludes other processes and dies with its process (kill -9 included), so a
 *       {@value #FILE} file left behind never blocks an open. The file is never deleted: an opener that
 *       deleted it could leave two processes each holding a lock on a different inode.
 *   <li>The holder writes its pid into the file after taking the lock; a refused opener reads it to
 *       name the holder. "Where known": for the instant between another opener's lock and its write
 *       the file may still be empty or hold a previous holder's pid.
 *   <li>Within one JVM the OS lock protects nothing, and opening the file twice is harmful: on Linux
 *       these are fcntl locks owned by the process, and closing <em>any</em> descriptor of the file drops
 *       them (see {@link FileLock}: "closing a channel releases all locks held by the Java virtual
 *       machine on the underlying file"). So this class keeps a registry of the directories this JVM
 *       holds, keyed by the directory's file key (device and inode, so another spelling of the path is
 *       the same directory), checks it before opening any descriptor of {@value #FILE}, and never opens
 *       a held lock's file again: a second open in this process fails before touching the file.
 * </ul>
 *
 * <p>Errors are {@link IOException}s naming the directory and, where known, the holder's pid.
 */
public final class DirectoryLock implements Closeable {
  public static final String FILE = "LOCK";
  private static final int MAX_PID_BYTES = 32;

  /** Directories held by this JVM: file key -> the path they were opened by. Guarded by itself. */
  private static final Map<Object, Path> HELD = new HashMap<>();

  private final Path directory;
  private final Object key;
  private final FileChannel channel;
  private final FileLock lock;
  private boolean closed; // guarded by HELD

  private DirectoryLock(Path directory, Object key, FileChannel channel, FileLock lock) {
    this.directory = directory;
    this.key = key;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Locks the existing directory {@code directory}, creating {@value #FILE} with {@code permissions}
   * (null: the platform's default) if needed, and writes this process's pid into it.
   *
   * @throws IOException if this or another process holds it (naming the holder's pid where known), or
   *     the file cannot be made or locked
   */
  public static DirectoryLock acquire(Path directory, Set<PosixFilePermission> permissions) throws IOException {
    Path file = directory.resolve(FILE);
    synchronized (HELD) {
      Object key = keyOf(directory);
      Path holder = HELD.get(key);
      if (holder != null) {
        throw new IOException("directory " + directory + " is already open in this process (pid "
            + ProcessHandle.current().pid() + (holder.equals(directory) ? "" : ", as " + holder)
            + "): close that cache first (a close that timed out keeps it until that cache's threads end)");
      }
      FileChannel ch = FileChannel.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
          StandardOpenOption.WRITE), FileModes.attributes(permissions));
      try {
        FileLock lock = tryLock(ch, file);
        if (lock == null) {
          String pid = holderPid(ch);
          throw new IOException("directory " + directory + " is in use by "
              + (pid == null ? "another process" : "process " + pid) + " (it holds " + file
              + "): close that cache first (a close that timed out keeps it until that cache's threads end)");
        }
        FileModes.trySet(file, permissions); // an old LOCK file may have been made with others
        ByteBuffer pid = ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII));
        ch.truncate(0);
        while (pid.hasRemaining()) {
          ch.write(pid, pid.position());
        }
        HELD.put(key, directory);
        return new DirectoryLock(directory, key, ch, lock);
      } catch (IOException | RuntimeException | Error e) {
        try {
          ch.close(); // releases the lock if taken; safe: no other descriptor of it is open in this JVM
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
        throw e;
      }
    }
  }

  private static FileLock tryLock(FileChannel ch, Path file) throws IOException {
    try {
      return ch.tryLock();
    } catch (OverlappingFileLockException e) { // locked in this JVM, but not through this class
      throw new IOException(file + " is locked by other code in this process (pid "
          + ProcessHandle.current().pid() + ")", e);
    } catch (IOException e) {
      throw new IOException("cannot lock " + file + ": " + e.getMessage(), e);
    }
  }

  /** The pid the holder wrote into the file, or null if there is none (yet) or it cannot be read. */
  private static String holderPid(FileChannel ch) {
    ByteBuffer b = ByteBuffer.allocate(MAX_PID_BYTES);
    try {
      while (b.hasRemaining() && ch.read(b, b.position()) > 0) {
        // reads the whole (short) file
      }
    } catch (IOException e) {
      return null;
    }
    String s = new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII).trim();
    return s.matches("[0-9]{1,19}") ? s : null;
  }

  /** The directory's identity: device and inode where the file system has them, else its real path. */
  private static Object keyOf(Path directory) throws IOException {
    Object key = Files.readAttributes(directory, BasicFileAttributes.class).fileKey();
    return key != null ? key : directory.toRealPath();
  }

  /** Releases the lock; the file stays. Idempotent. */
  @Override
  public void close() throws IOException {
    synchronized (HELD) {
      if (closed) {
        return;
      }
      closed = true;
      try {
        lock.release();
      } finally {
        try {
          channel.close();
        } finally {
          HELD.remove(key);
        }
      }
    }
  }

  @Override
  public String toString() {
    return "DirectoryLock{" + directory + "}";
  }
}
