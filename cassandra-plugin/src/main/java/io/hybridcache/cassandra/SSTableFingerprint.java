package io.hybridcache.cassandra;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.cassandra.db.Directories;
import org.apache.cassandra.db.lifecycle.LifecycleTransaction;
import org.apache.cassandra.io.util.File;

/**
 * What a warm start must find as the clean close left it: the live sstables of every keyspace but the
 * local system ones ({@code system}, {@code system_schema}), as the names of their {@code Data.db} files
 * (keyspace/table directory/[.index/]file) under the data directories, summarised as their count and the
 * SHA-256 of the sorted list ({@code "N HEX"}).
 *
 * <p>Why this signal. Every change of a table's durable data that does not reach the row cache ends in
 * sstable files: a run without this provider (row_cache_size 0, another provider) flushes its writes at
 * its drain or when a memtable fills; TRUNCATE and DROP remove sstables; compaction, import, streams
 * and restores add or remove them; sstable generations are never reused (sequence or UUID identifiers),
 * so a changed table has at least one new or missing name. Writes still only in the commit log are
 * replayed at start, and replay invalidates them through the provider like any write.
 *
 * <p>What may change between the close and the next open, and why it is left out or harmless:
 * <ul>
 *   <li>Cassandra's drain runs the post-shutdown hooks (where the close computes this) after the flushes,
 *       after {@code CompactionManager.forceShutdown} and after awaiting {@code nonPeriodicTasks}, which
 *       runs sstable deletions: nothing of the user tables changes after the close in that JVM.
 *   <li>At start, the provider is made (the first use of {@code CacheService}) after
 *       {@code CommitLog.start} and during {@code persistLocalMetadata}'s write or a system keyspace's
 *       sstable load: the local system keyspaces are written and flushed before, so they are excluded (and
 *       their tables never cache rows). {@code Schema.loadFromDisk}, {@code scrubDataDirectories} (leftover
 *       cleanup) and {@code Keyspace.open} of the other keyspaces come after.
 *   <li>Files of an unfinished or committed-but-not-yet-deleted transaction are classified as Cassandra's
 *       own start-up does ({@link LifecycleTransaction#getFiles}: only {@code FINAL} files count), so the
 *       leftover cleanup removes nothing that was counted.
 *   <li>Snapshots and incremental backups are not live data: not listed.
 * </ul>
 * A difference can be spurious (e.g. sstables restored with the same contents): it costs a cold start.
 */
final class SSTableFingerprint {
  private static final Set<String> LOCAL_SYSTEM = Set.of("system", "system_schema");
  private static final String DATA = "-Data.db";

  private SSTableFingerprint() {}

  /** The fingerprint of {@code dataDirectories}; throws if any directory cannot be read or classified. */
  static String of(String[] dataDirectories) throws IOException {
    TreeSet<String> names = new TreeSet<>();
    for (String d : dataDirectories) {
      Path root = Path.of(d);
      if (!Files.isDirectory(root)) {
        continue;
      }
      for (Path ks : list(root)) {
        if (!Files.isDirectory(ks) || LOCAL_SYSTEM.contains(ks.getFileName().toString())) {
          continue;
        }
        for (Path table : list(ks)) {
          if (Files.isDirectory(table)) {
            addLive(table, ks.getFileName() + "/" + table.getFileName() + "/", names);
            for (Path index : list(table)) {
              if (Files.isDirectory(index) && index.getFileName().toString().startsWith(".")) {
                addLive(index, ks.getFileName() + "/" + table.getFileName() + "/" + index.getFileName() + "/", names);
              }
            }
          }
        }
      }
    }
    return summary(names);
  }

  /** {@code "N HEX"}: the count and the SHA-256 of the sorted names, one a line. */
  static String summary(java.util.SortedSet<String> names) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (String n : names) {
        sha.update(n.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) '\n');
      }
      return names.size() + " " + HexFormat.of().formatHex(sha.digest());
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

  private static void addLive(Path folder, String prefix, Set<String> names) throws IOException {
    List<File> live;
    try {
      live = LifecycleTransaction.getFiles(folder, (file, type) -> type == Directories.FileType.FINAL
          && file.name().endsWith(DATA), Directories.OnTxnErr.THROW);
    } catch (RuntimeException e) {
      throw new IOException("cannot list the live sstables of " + folder + ": " + e, e);
    }
    for (File f : live) {
      names.add(prefix + f.name());
    }
  }

  private static List<Path> list(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return new ArrayList<>(s.toList());
    }
  }
}
