package io.hybridcache.cassandra;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiPredicate;
import org.apache.cassandra.db.Directories;
import org.apache.cassandra.db.lifecycle.LifecycleTransaction;
import org.apache.cassandra.io.util.File;

/**
 * What a warm start must find as the clean close left it: the live sstables of every keyspace but the
 * local system ones ({@code system}, {@code system_schema}), one line per {@code Data.db} file: its
 * absolute path (the data directory included), size, modification time (ns), inode and the CRC its
 * {@code Digest.crc32} component records; summarised as their count and the SHA-256 of the sorted lines
 * ({@code "N HEX"}).
 *
 * <p>Why per file and not the names. Every change of a table's durable data that does not reach the row
 * cache ends in sstable files: a run without this provider (row_cache_size 0, another provider) flushes
 * its writes at its drain or when a memtable fills; TRUNCATE and DROP remove sstables; compaction,
 * import, streams and restores add or remove them. But names are reused: with the default
 * {@code uuid_sstable_identifiers_enabled: false} the generation generator
 * ({@code SequenceBasedSSTableId.Builder.generator}) starts above the highest generation found at start,
 * so after a TRUNCATE or once every sstable expired a later run numbers from 1 again, and restored backups
 * carry their old names. A rewritten file is a new file: another inode (unless the old one's was freed
 * and reused), another modification time, mostly another size, and the data's CRC. Writes still only in
 * the commit log are replayed at start, and replay invalidates them through the provider like any write.
 *
 * <p>What may change between the close and the next open, and why it is left out or harmless:
 * <ul>
 *   <li>Cassandra's drain runs the post-shutdown hooks (where the close computes this) after the flushes
 *       and {@code CompactionManager.forceShutdown}; it stops {@code nonPeriodicTasks} with
 *       {@code shutdownNow}, which drops queued sstable deletions. That is harmless: an sstable is only
 *       deleted after the transaction that obsoleted it committed, and until the transaction log is gone
 *       {@link LifecycleTransaction#getFiles} classifies its files as obsolete, at the close as at the
 *       next open (and start-up's leftover cleanup removes exactly those).
 *   <li>At start, with the BIG format, the provider is made (the first use of {@code CacheService}) after
 *       {@code CommitLog.start} and during {@code persistLocalMetadata}'s write or a system keyspace's
 *       sstable load: the local system keyspaces are written and flushed before, so they are excluded (and
 *       their tables never cache rows). {@code Schema.loadFromDisk}, {@code scrubDataDirectories} (leftover
 *       cleanup) and {@code Keyspace.open} of the other keyspaces come after. With
 *       {@code selected_format: bti} nothing uses {@code CacheService} before {@code loadRowAndKeyCacheAsync}:
 *       the fingerprint is taken after the leftover cleanup, which removes only what is left out here too
 *       (non-{@code FINAL} files, and a zero-length {@code Data.db} as an orphan), and still before the
 *       commit log replay.
 *   <li>Snapshots and incremental backups are not live data: not listed.
 * </ul>
 * A difference can be spurious (e.g. sstables restored with the same contents, files copied with new
 * inodes): it costs a cold start.
 *
 * <p>Cost: each table directory is read once; only entries named {@code *-Data.db} are stat'ed, the
 * {@code Digest.crc32} beside each is read (a few bytes), and {@link LifecycleTransaction#getFiles}
 * (which lists and stats the directory again) is called only where a transaction log
 * ({@code *txn_*.log}) is present. The provider runs it under {@link #DEADLINE} ({@link #bounded}).
 */
final class SSTableFingerprint {
  /** How long the fingerprint may take; longer is a cold start (at open) or no marker (at close). */
  static final Duration DEADLINE = Duration.ofSeconds(30);

  private static final Set<String> LOCAL_SYSTEM = Set.of("system", "system_schema");
  private static final String DATA = "-Data.db";
  private static final String DIGEST = "-Digest.crc32";

  private SSTableFingerprint() {}

  /** The fingerprint of {@code dataDirectories}; throws if any directory cannot be read or classified. */
  static String of(String[] dataDirectories) throws IOException {
    return of(dataDirectories, (keyspace, tableDirectory) -> true);
  }

  /**
   * As {@link #of(String[])}, over the table directories {@code tables} accepts (keyspace name, table
   * directory name "table-ID"): tests scope it to their own tables.
   */
  static String of(String[] dataDirectories, BiPredicate<String, String> tables) throws IOException {
    TreeSet<String> lines = new TreeSet<>();
    for (String d : dataDirectories) {
      Path root = Path.of(d).toAbsolutePath();
      for (Path ks : subdirectories(root, name -> !LOCAL_SYSTEM.contains(name))) {
        String keyspace = ks.getFileName().toString();
        for (Path table : subdirectories(ks, name -> tables.test(keyspace, name))) {
          addLive(table, true, lines);
        }
      }
    }
    return summary(lines);
  }

  /**
   * {@code compute} run on a thread of its own, given {@code deadline}: a {@link TimeoutException} after
   * it (the thread, a daemon, is interrupted and left to end; a read stuck in the kernel cannot be cut).
   */
  static Callable<String> bounded(Callable<String> compute, Duration deadline) {
    return () -> {
      FutureTask<String> task = new FutureTask<>(compute);
      Thread t = new Thread(task, "hybridcache-sstable-fingerprint");
      t.setDaemon(true);
      t.start();
      try {
        return task.get(deadline.toNanos(), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        task.cancel(true);
        throw new TimeoutException("the live sstables were not listed within " + deadline.toMillis()
            + " ms (a slow or hung data directory)");
      } catch (InterruptedException e) {
        task.cancel(true);
        Thread.currentThread().interrupt();
        throw e;
      } catch (ExecutionException e) {
        throw e.getCause() instanceof Exception c ? c : e;
      }
    };
  }

  /** {@code "N HEX"}: the count and the SHA-256 of the sorted lines, one a line. */
  static String summary(SortedSet<String> lines) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String n : lines) {
        sha.update(n.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) '\n');
      }
      return lines.size() + " " + HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e); // every Java platform has SHA-256
    }
  }

  /** The number of sstables in a fingerprint (for the log), or -1. */
  static long count(String fingerprint) {
    try {
      return Long.parseLong(fingerprint.substring(0, fingerprint.indexOf(' ')));
    } catch (RuntimeException e) {
      return -1;
    }
  }

  /**
   * Adds a line for each live {@code Data.db} of {@code folder} (and, for a table directory, of its
   * {@code .index} directories), from one read of the directory.
   */
  private static void addLive(Path folder, boolean tableDirectory, Set<String> lines) throws IOException {
    Map<String, BasicFileAttributes> data = new HashMap<>();
    Set<String> digests = new HashSet<>();
    List<Path> indexes = new ArrayList<>();
    boolean txnLog = false;
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
      for (Path p : entries) {
        String n = p.getFileName().toString();
        if (n.endsWith(DATA)) {
          try {
            data.put(n, Files.readAttributes(p, BasicFileAttributes.class));
          } catch (NoSuchFileException gone) {
            // deleted since listed (a transaction's cleanup): not live
          }
        } else if (n.endsWith(DIGEST)) {
          digests.add(n);
        } else if (n.endsWith(".log") && n.contains("txn_")) {
          txnLog = true;
        } else if (tableDirectory && n.startsWith(".")) {
          indexes.add(p);
        }
      }
    } catch (NotDirectoryException | NoSuchFileException notATable) {
      return;
    }
    Set<String> live = data.keySet();
    if (txnLog) {
      live = new HashSet<>();
      try {
        for (File f : LifecycleTransaction.getFiles(folder, (file, type) -> type == Directories.FileType.FINAL
            && file.name().endsWith(DATA), Directories.OnTxnErr.THROW)) {
          live.add(f.name());
        }
      } catch (RuntimeException e) {
        throw new IOException("cannot classify the sstables of " + folder + ": " + e, e);
      }
    }
    for (String n : live) {
      Path p = folder.resolve(n);
      BasicFileAttributes a = data.get(n);
      if (a == null) {
        a = Files.readAttributes(p, BasicFileAttributes.class); // listed by getFiles only: a race, rare
      }
      if (!a.isRegularFile() || a.size() == 0) {
        continue; // a zero-length Data.db is an orphan start-up removes (SortedTableScrubber)
      }
      String prefix = n.substring(0, n.length() - DATA.length());
      String crc = digests.contains(prefix + DIGEST) ? digest(folder.resolve(prefix + DIGEST)) : "-";
      lines.add(p + " " + a.size() + " " + a.lastModifiedTime().to(TimeUnit.NANOSECONDS) + " "
          + inode(a.fileKey()) + " " + crc);
    }
    for (Path index : indexes) {
      addLive(index, false, lines);
    }
  }

  /** The inode of a file key ("(dev=...,ino=N)" on Linux), else the key as a string. */
  static String inode(Object fileKey) {
    if (fileKey == null) {
      return "-";
    }
    String k = fileKey.toString();
    int i = k.indexOf("ino=");
    if (i < 0) {
      return k;
    }
    int j = i + 4;
    while (j < k.length() && Character.isDigit(k.charAt(j))) {
      j++;
    }
    return k.substring(i + 4, j);
  }

  /** What a Digest.crc32 component holds (the Data.db CRC, a decimal number; at most 32 bytes read). */
  private static String digest(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return new String(in.readNBytes(32), StandardCharsets.US_ASCII).trim();
    } catch (NoSuchFileException gone) {
      return "-";
    }
  }

  /** The subdirectories of {@code dir} whose name {@code accept}s, unstat'ed (a file is skipped when read). */
  private static List<Path> subdirectories(Path dir, java.util.function.Predicate<String> accept)
      throws IOException {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path p : entries) {
        if (accept.test(p.getFileName().toString())) {
          out.add(p);
        }
      }
    } catch (NotDirectoryException | NoSuchFileException absent) {
      // a data directory not made yet, or a file where a keyspace directory would be
    }
    return out;
  }
}
