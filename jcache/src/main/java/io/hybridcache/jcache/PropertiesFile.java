package io.hybridcache.jcache;

import io.hybridcache.core.device.AtomicFile;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Properties;
import java.util.zip.CRC32C;

/**
 * A small properties file of the provider's, read whole and replaced atomically (synced, or not: see
 * {@link #write(Path, Properties, String, boolean)}). Stateless.
 *
 * <p>Format: a checked file, so that one an OS crash tore (a prefix, an empty file, a block of zeros) is told
 * apart from a good one ({@link Damaged}) instead of read as fewer or shorter entries: a first line {@link #HEADER},
 * the properties as {@link Properties#store} writes them, and a last line {@link #END} with the CRC-32C (8 hex
 * digits) of every byte before it. A file of an earlier version of the provider (no such first line, written synced;
 * it begins with a {@code #} comment line) is read as it is.
 */
final class PropertiesFile {
  /** A checked file's first line. */
  static final String HEADER = "#hybridcache checked properties: the last line is the CRC-32C of the bytes before it\n";
  /** The start of a checked file's last line: its checksum. */
  static final String END = "#crc32c=";

  private static final byte[] HEADER_BYTES = HEADER.getBytes(StandardCharsets.ISO_8859_1);

  /** A file that is not what {@link #write} wrote whole: torn, empty or garbled (an OS crash of an unforced write). */
  static final class Damaged extends IOException {
    Damaged(Path file, String what) {
      super(file + " is damaged: " + what);
    }
  }

  private PropertiesFile() {}

  /**
   * The properties in {@code file}, or null if there is no such file (a symbolic link is not followed).
   *
   * @throws Damaged if the file is empty, or checked and not whole (no last line, or its checksum does not match)
   */
  static Properties read(Path file) throws IOException {
    if (Files.isSymbolicLink(file)) {
      throw new IOException(file + " is a symbolic link, not a file the cache wrote");
    }
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      bytes = in.readAllBytes();
    } catch (NoSuchFileException e) {
      return null;
    }
    int length = checkedLength(file, bytes);
    Properties p = new Properties();
    p.load(new ByteArrayInputStream(bytes, 0, length));
    return p;
  }

  /** How many of {@code bytes} hold the properties: all of an earlier version's file, a checked one's but its end. */
  private static int checkedLength(Path file, byte[] bytes) throws Damaged {
    if (bytes.length == 0) {
      throw new Damaged(file, "it is empty");
    }
    boolean checked = startsWith(bytes, HEADER_BYTES);
    if (!checked && startsWith(HEADER_BYTES, bytes)) {
      throw new Damaged(file, "it ends inside its first line (" + bytes.length + " bytes)");
    }
    if (!checked && bytes[0] != '#') { // Properties.store begins with a comment line
      throw new Damaged(file, "it does not begin as a file of the provider's (first byte " + (bytes[0] & 0xff) + ")");
    }
    if (!checked) {
      return bytes.length; // an earlier version's file
    }
    int end = bytes[bytes.length - 1] == '\n' ? lastLineStart(bytes) : -1;
    String last = end < 0 ? "" : new String(bytes, end, bytes.length - 1 - end, StandardCharsets.ISO_8859_1);
    if (!last.startsWith(END)) {
      throw new Damaged(file, "its last line is not its checksum (cut short: " + bytes.length + " bytes)");
    }
    String expected = crc(bytes, end);
    if (!last.substring(END.length()).equals(expected)) {
      throw new Damaged(file, "its checksum is " + last.substring(END.length()) + ", its bytes' " + expected);
    }
    return end;
  }

  private static int lastLineStart(byte[] bytes) {
    for (int i = bytes.length - 2; i >= 0; i--) {
      if (bytes[i] == '\n') {
        return i + 1;
      }
    }
    return 0;
  }

  private static boolean startsWith(byte[] bytes, byte[] prefix) {
    return bytes.length >= prefix.length && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
  }

  private static String crc(byte[] bytes, int length) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, length);
    return HexFormat.of().toHexDigits((int) crc.getValue());
  }

  /** Replaces {@code file} with {@code p} through a new temp file, synced before it is used. */
  static void write(Path file, Properties p, String comment) throws IOException {
    write(file, p, comment, true);
  }

  /**
   * Replaces {@code file} with {@code p} through a new temp file, renamed over it: forced to the device first if
   * {@code force} (then an OS crash keeps it), else not (a process kill keeps it; an OS crash may leave it
   * {@link Damaged} or the old one; {@link AtomicFile#sync} forces it later).
   */
  static void write(Path file, Properties p, String comment, boolean force) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(HEADER_BYTES);
    p.store(out, comment);
    out.writeBytes((END + crc(out.toByteArray(), out.size()) + "\n").getBytes(StandardCharsets.ISO_8859_1));
    byte[] bytes = out.toByteArray();
    AtomicFile.replace(file, ch -> AtomicFile.writeFully(ch, ByteBuffer.wrap(bytes)), force);
  }
}
