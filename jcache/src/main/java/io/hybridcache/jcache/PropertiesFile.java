package io.hybridcache.jcache;

import io.hybridcache.core.device.AtomicFile;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Properties;

/** A small properties file of the provider's, read whole and replaced atomically (synced). Stateless. */
final class PropertiesFile {
  private PropertiesFile() {}

  /** The properties in {@code file}, or null if there is no such file (a symbolic link is not followed). */
  static Properties read(Path file) throws IOException {
    Properties p = new Properties();
    if (Files.isSymbolicLink(file)) {
      throw new IOException(file + " is a symbolic link, not a file the cache wrote");
    }
    try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
      p.load(in);
    } catch (NoSuchFileException e) {
      return null;
    }
    return p;
  }

  /** Replaces {@code file} with {@code p} through a new temp file, synced before it is used. */
  static void write(Path file, Properties p, String comment) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    p.store(out, comment);
    byte[] bytes = out.toByteArray();
    AtomicFile.replace(file, ch -> AtomicFile.writeFully(ch, ByteBuffer.wrap(bytes)));
  }
}
