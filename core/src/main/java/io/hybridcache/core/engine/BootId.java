package io.hybridcache.core.engine;

import io.hybridcache.core.device.AtomicFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * Tells a process kill from an OS crash or power loss: the kernel's boot id
 * ({@code /proc/sys/kernel/random/boot_id}, new at every boot) is recorded in the cache directory at
 * each open; an unclean stop seen by an open in the same boot was a process kill (memory-mapped writes
 * survived in the page cache), one seen in another boot may have lost every write that was not synced.
 *
 * <p>Thread-safe: stateless but for the test hook {@link #source}. Format of {@value #FILE}: the boot id
 * as text (36 ASCII characters), written atomically ({@link AtomicFile}). Where the kernel offers no boot
 * id (not Linux), none is recorded and every unclean stop counts as one in another boot (cold unless
 * the durability is POWER).
 */
final class BootId {
  static final String FILE = "boot.id";
  private static final Path KERNEL = Path.of("/proc/sys/kernel/random/boot_id");

  /** Where the current boot id comes from (tests fake a reboot through it); null result: unknown. */
  static volatile Supplier<String> source = BootId::kernel;

  private BootId() {}

  static String current() {
    return source.get();
  }

  private static String kernel() {
    try {
      return Files.readString(KERNEL, StandardCharsets.US_ASCII).trim();
    } catch (IOException | SecurityException e) {
      return null;
    }
  }

  /** True if {@code dir} was last opened in this boot (by its record); false if unknown. */
  static boolean sameBoot(Path dir) {
    String now = current();
    if (now == null) {
      return false;
    }
    try {
      return now.equals(Files.readString(dir.resolve(FILE), StandardCharsets.US_ASCII).trim());
    } catch (NoSuchFileException e) {
      return false;
    } catch (IOException e) {
      return false;
    }
  }

  /** Records the current boot id in {@code dir} (removes a stale record if it is unknown). */
  static void record(Path dir) throws IOException {
    String now = current();
    Path f = dir.resolve(FILE);
    if (now == null) {
      Files.deleteIfExists(f);
      return;
    }
    AtomicFile.replace(f, ch -> AtomicFile.writeFully(ch, ByteBuffer.wrap(now.getBytes(StandardCharsets.US_ASCII))));
  }
}
