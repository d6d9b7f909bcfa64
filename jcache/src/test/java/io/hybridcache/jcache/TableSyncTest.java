package io.hybridcache.jcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import javax.cache.Cache;
import javax.cache.CacheManager;
import javax.cache.configuration.MutableConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clears one after another (Hibernate evicting every region, Spring's {@code DELETE /actuator/caches}) force the
 * namespace table to the device only under {@code durability=POWER}: with the default the engine itself starts cold
 * after a power loss, and a written and renamed table survives a process kill in the page cache. A clean close
 * forces it once, before the engine's clean close makes the engine warm after any stop.
 */
class TableSyncTest {
  private static final int CACHES = 8;
  @TempDir Path dir;

  private CacheManager open(String durability) {
    Properties p = TestManagers.small(dir);
    if (durability != null) {
      p.setProperty(ProviderProperties.DURABILITY, durability);
    }
    return new HybridCachingProvider().getCacheManager(URI.create("test:" + dir.getFileName()),
        TableSyncTest.class.getClassLoader(), p);
  }

  /** Creates the caches, fills them, clears them one after another; returns the table's forces the clears made. */
  private int clearEachInTurn(CacheManager m, Namespaces table) throws Exception {
    List<Cache<String, String>> caches = new ArrayList<>();
    for (int i = 0; i < CACHES; i++) {
      Cache<String, String> c = m.createCache("region-" + i,
          new MutableConfiguration<String, String>().setTypes(String.class, String.class));
      c.put("k", "v" + i);
      caches.add(c);
    }
    int writesBefore = table.writes.get();
    int forcedBefore = table.forcedWrites.get();
    for (int i = 0; i < CACHES; i++) {
      caches.get(i).clear();
      Properties onDisk = PropertiesFile.read(dir.resolve(Namespaces.FILE));
      Namespace ns = table.find("region-" + i);
      assertEquals(ns.id() + "." + ns.epoch(), onDisk.getProperty("region-" + i),
          "region-" + i + "'s new epoch is in the table when its clear returns");
    }
    assertEquals(CACHES, table.writes.get() - writesBefore, "each sequential clear writes the table");
    return table.forcedWrites.get() - forcedBefore;
  }

  @Test
  void sequentialClearsForceNoTableWriteUnderTheDefaultDurability() throws Exception {
    Namespaces table;
    try (CacheManager m = open(null)) {
      table = ((HybridCacheManager) m).namespaces();
      assertEquals(0, clearEachInTurn(m, table), CACHES + " sequential clears forced the table");
      int beforeClose = table.forcedWrites.get();
      m.close();
      assertEquals(beforeClose + 1, table.forcedWrites.get(), "a clean close forces the table once");
    }
    try (CacheManager m = open(null)) {
      Namespaces reopened = ((HybridCacheManager) m).namespaces();
      for (int i = 0; i < CACHES; i++) {
        assertEquals(1, reopened.find("region-" + i).epoch(), "region-" + i + "'s clear after a restart");
      }
    }
  }

  @Test
  void underPowerDurabilityEachClearForcesTheTable() throws Exception {
    try (CacheManager m = open("POWER")) {
      Namespaces table = ((HybridCacheManager) m).namespaces();
      assertEquals(CACHES, clearEachInTurn(m, table), "forces of the table by " + CACHES + " clears under POWER");
    }
  }

  @Test
  void aBadDurabilityIsNamed() {
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> ManagerSettings.resolve(URI.create("test:x"), getClass().getClassLoader(), props("durability", "disk"),
            new Properties(), java.util.Map.of()));
    assertTrue(e.getMessage().contains("durability must be PROCESS, POWER or NONE, was disk"), e.getMessage());
  }

  private Properties props(String k, String v) {
    Properties p = TestManagers.small(dir);
    p.setProperty(k, v);
    return p;
  }
}
