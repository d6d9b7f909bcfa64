package io.hybridcache.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.IndexType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** The settings file: where it is found, defaults, and errors that name the setting. No Cassandra node. */
class RowCacheSettingsTest {
  @TempDir Path dir;
  private final String savedFile = System.getProperty(RowCacheSettings.FILE_PROPERTY);
  private final String savedYaml = System.getProperty("cassandra.config");

  @AfterEach
  void restore() {
    set(RowCacheSettings.FILE_PROPERTY, savedFile);
    set("cassandra.config", savedYaml);
  }

  private static void set(String key, String value) {
    if (value == null) {
      System.clearProperty(key);
    } else {
      System.setProperty(key, value);
    }
  }

  private Path file(String... lines) throws IOException {
    return Files.write(dir.resolve(RowCacheSettings.FILE_NAME), String.join("\n", lines).getBytes());
  }

  private String error(String... lines) throws IOException {
    Path f = file(lines);
    return assertThrows(IllegalArgumentException.class, () -> RowCacheSettings.read(f)).getMessage();
  }

  @Test
  void readsEverySettingAndDefaults() throws IOException {
    Path f = file("directory=" + dir.resolve("flash"), "flash_size=256MiB", "segment_size=4MiB",
        "write_buffer_size=128KiB", "admission=random:0.5", "direct_io=false", "start=warm", "name=rc1",
        "expected_entries=5000", "write_buffers=8", "table_classes=per_table");
    RowCacheSettings s = RowCacheSettings.read(f);
    CacheConfig c = s.cacheConfig(32 * CacheConfig.MIB);
    assertEquals(dir.resolve("flash"), c.directory());
    assertEquals(256 * CacheConfig.MIB, c.flashBytes());
    assertEquals(4 * CacheConfig.MIB, c.segmentBytes());
    assertEquals(128 * 1024, c.writeBufferBytes());
    assertFalse(c.directIo());
    assertEquals(IndexType.HEAP, c.indexType());
    assertEquals(32 * CacheConfig.MIB, c.dramBytes());
    assertEquals("rc1", c.name());
    assertEquals(5000, c.expectedEntries());
    assertEquals(8, c.writeBuffers());
    assertEquals(32, c.writeBuffersTotal(), "four classes' worth, not the library's sixteenth of the 32 MiB tier");
    assertTrue(s.warmStart());
    assertTrue(s.classPerTable());

    RowCacheSettings d = RowCacheSettings.read(file("directory=" + dir));
    CacheConfig dc = d.cacheConfig(16 * CacheConfig.MIB);
    assertEquals(CacheConfig.GIB, dc.flashBytes());
    assertEquals(64 * CacheConfig.MIB, dc.segmentBytes());
    assertTrue(dc.directIo());
    assertEquals(IndexType.HEAP, dc.indexType(), "no Chronicle inside Cassandra");
    assertEquals("cassandra-row-cache", dc.name());
    assertEquals(CacheConfig.GIB / 4096, dc.expectedEntries());
    assertFalse(d.warmStart(), "cold by default");
    assertFalse(d.classPerTable(), "one lifetime class for every table by default");
    assertEquals(RowCacheSettings.DEFAULT_WRITE_BUFFERS, dc.writeBuffers(), "more buffers than the library's: no wait");
    assertEquals(java.time.Duration.ZERO, dc.cascadeWait(), "Cassandra's threads never wait for flash room");
  }

  @Test
  void errorsNameTheSettingAndTheFile() throws IOException {
    assertTrue(error("flash_size=1GiB").contains("directory must be set"));
    String m = error("directory=" + dir, "flash_size=lots");
    assertTrue(m.contains("flash_size") && m.contains("lots") && m.contains(dir.toString()), m);
    m = error("directory=" + dir, "flash_sise=1GiB");
    assertTrue(m.contains("unknown setting 'flash_sise'"), m);
    m = error("directory=" + dir, "write_buffers=1");
    assertTrue(m.contains("write_buffers") && m.contains("1"), m);
    m = error("directory=relative/path");
    assertTrue(m.contains("directory must be an absolute path"), m);
    m = error("directory=" + dir, "index=chronicle");
    assertTrue(m.contains("index must be heap"), m);
    m = error("directory=" + dir, "admission=maybe");
    assertTrue(m.contains("admission") && m.contains("maybe"), m);
    m = error("directory=" + dir, "expected_entries=-3");
    assertTrue(m.contains("expected_entries must be a positive whole number"), m);
    m = error("directory=" + dir, "table_classes=each");
    assertTrue(m.contains("table_classes must be one of [single, per_table]") && m.contains("each"), m);
    m = error("directory=" + dir, "direct_io=yes");
    assertTrue(m.contains("direct_io must be one of [true, false]"), m);
    m = error("directory=" + dir, "flash_size=8MiB", "segment_size=4MiB");
    assertTrue(m.startsWith(RowCacheSettings.PREFIX) && m.contains("flash_size must hold at least"), m);
    m = error("directory=" + dir, "segment_size=1000B");
    assertTrue(m.contains("segment_size must be") && m.contains("a multiple of 4096") && m.contains("1000"), m);
    RowCacheSettings ok = RowCacheSettings.read(file("directory=" + dir));
    m = assertThrows(IllegalArgumentException.class, () -> ok.cacheConfig(1000)).getMessage();
    assertTrue(m.contains("row_cache_size"), m);
  }

  @Test
  void foundThroughThePropertyOrBesideCassandraYaml() throws IOException {
    Path f = file("directory=" + dir);
    System.setProperty(RowCacheSettings.FILE_PROPERTY, f.toString());
    assertEquals(f, RowCacheSettings.locate());
    System.clearProperty(RowCacheSettings.FILE_PROPERTY);
    Path yaml = Files.writeString(dir.resolve("cassandra.yaml"), "cluster_name: x\n");
    System.setProperty("cassandra.config", yaml.toUri().toString());
    assertEquals(f, RowCacheSettings.locate());
    System.setProperty("cassandra.config", yaml.toString());
    assertEquals(f, RowCacheSettings.locate());
    Files.delete(f);
    String m = assertThrows(IllegalArgumentException.class, RowCacheSettings::locate).getMessage();
    assertTrue(m.contains("-Dhybridcache.config") && m.contains(f.toString()), m);
    System.setProperty(RowCacheSettings.FILE_PROPERTY, dir.resolve("missing.properties").toString());
    m = assertThrows(IllegalArgumentException.class, RowCacheSettings::locate).getMessage();
    assertTrue(m.contains("missing.properties"), m);
  }

  /** Cassandra replaces a failing constructor's exception by "Cannot find configured row cache provider class". */
  @Test
  void theProviderLogsTheCauseBeforeCassandraHidesIt() throws IOException {
    Path f = file("directory=" + dir, "segment_size=big");
    System.setProperty(RowCacheSettings.FILE_PROPERTY, f.toString());
    Logger logger = (Logger) LoggerFactory.getLogger(HybridRowCacheProvider.class);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    logger.addAppender(appender);
    try {
      assertThrows(IllegalArgumentException.class, HybridRowCacheProvider::new);
    } finally {
      logger.detachAppender(appender);
    }
    assertEquals(1, appender.list.size());
    ILoggingEvent e = appender.list.get(0);
    assertEquals("ERROR", e.getLevel().toString());
    assertTrue(e.getFormattedMessage().contains("segment_size") && e.getFormattedMessage().contains("big"),
        e.getFormattedMessage());
  }
}
