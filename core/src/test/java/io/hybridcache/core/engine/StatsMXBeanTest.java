package io.hybridcache.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheStats;
import io.hybridcache.core.api.HybridCacheMXBean;
import io.hybridcache.core.api.SmallObjectStats;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * The JMX bean shows every {@link CacheStats} field and derived figure, under the field's name, with
 * the field's value, as read through the platform MBeanServer.
 */
class StatsMXBeanTest {

  /** Each record component and derived figure of CacheStats: its accessor by attribute name. */
  static Map<String, Method> statsFigures() {
    Map<String, Method> figures = new TreeMap<>();
    for (Method m : CacheStats.class.getDeclaredMethods()) {
      if (Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()) && m.getParameterCount() == 0
          && !Set.of("toString", "hashCode", "smallObjects").contains(m.getName())) { // smallObjects: by its figures
        figures.put(Character.toUpperCase(m.getName().charAt(0)) + m.getName().substring(1), m);
      }
    }
    return figures;
  }

  /** A snapshot whose numeric fields are all different (1001, 1002...), degraded and with a fault. */
  static CacheStats distinctStats() throws Exception {
    RecordComponent[] cs = CacheStats.class.getRecordComponents();
    Object[] values = new Object[cs.length];
    for (int i = 0; i < cs.length; i++) {
      Class<?> t = cs[i].getType();
      values[i] = t == long.class ? (Object) (1001L + i) : t == int.class ? (Object) (1001 + i)
          : t == boolean.class ? (Object) true : t == SmallObjectStats.class
          ? new SmallObjectStats(true, 2001, 2002, 2003, 2004, 2005, 2006, 2007, 2008, 2009, 2010, 2011, 2012, 2013,
              2014, 2015, 2016, 2017, 2018, 2019, 2020, 2021, 2022, 2023)
          : "2026-01-01T00:00:00Z: disk on fire (test)";
    }
    Class<?>[] types = Arrays.stream(cs).map(RecordComponent::getType).toArray(Class<?>[]::new);
    return CacheStats.class.getDeclaredConstructor(types).newInstance(values);
  }

  @Test
  void theInterfaceHasAGetterForEveryStatsFieldAndFigure() {
    Set<String> attributes = Arrays.stream(HybridCacheMXBean.class.getMethods())
        .map(m -> m.getName().replaceFirst("^(get|is)", "")).collect(Collectors.toCollection(TreeSet::new));
    Set<String> missing = new TreeSet<>(statsFigures().keySet());
    missing.removeAll(attributes);
    assertEquals(Set.of(), missing, "CacheStats figures without an MXBean attribute");
    Set<String> extra = new TreeSet<>(attributes);
    extra.removeAll(statsFigures().keySet());
    assertEquals(Set.of(), extra, "MXBean attributes that are no CacheStats figure");
    for (RecordComponent c : CacheStats.class.getRecordComponents()) {
      if (c.getType() == SmallObjectStats.class) {
        continue; // shown by its figures (SmallObjectEntries, ...), checked above
      }
      String name = Character.toUpperCase(c.getName().charAt(0)) + c.getName().substring(1);
      Method getter = Arrays.stream(HybridCacheMXBean.class.getMethods())
          .filter(m -> m.getName().equals((c.getType() == boolean.class ? "is" : "get") + name)).findFirst()
          .orElseThrow(() -> new AssertionError("no getter named for " + c.getName()));
      assertEquals(c.getType(), getter.getReturnType(), c.getName());
    }
  }

  @Test
  void everyAttributeReadsItsFieldThroughThePlatformServer() throws Exception {
    CacheStats stats = distinctStats();
    StatsMXBean bean = StatsMXBean.register("stats-mxbean-test", () -> stats);
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    try {
      ObjectName name = bean.objectName();
      assertEquals(new ObjectName("io.hybridcache:type=HybridCache,name=\"stats-mxbean-test\""), name);
      Set<String> listed = Arrays.stream(server.getMBeanInfo(name).getAttributes())
          .map(MBeanAttributeInfo::getName).collect(Collectors.toSet());
      assertEquals(statsFigures().keySet(), listed);
      for (Map.Entry<String, Method> e : statsFigures().entrySet()) {
        assertEquals(e.getValue().invoke(stats), server.getAttribute(name, e.getKey()), e.getKey());
      }
      assertEquals(1014L, server.getAttribute(name, "FlashLiveBytes"), "the 14th field (1001 + 13), by name");
    } finally {
      bean.unregister();
    }
    assertFalse(server.isRegistered(new ObjectName("io.hybridcache:type=HybridCache,name=\"stats-mxbean-test\"")));
  }

  @Test
  void aNameNeedingQuotesAndATakenNameAreRegisteredAsDocumented() throws Exception {
    CacheStats stats = distinctStats();
    StatsMXBean first = StatsMXBean.register("rows, \"eu\"", () -> stats);
    StatsMXBean second = StatsMXBean.register("rows, \"eu\"", () -> stats);
    try {
      assertEquals("io.hybridcache:type=HybridCache,name=\"rows, \\\"eu\\\"\"", first.objectName().toString());
      assertEquals(ObjectName.quote("rows, \"eu\"-1"), second.objectName().getKeyProperty("name"));
      assertTrue(ManagementFactory.getPlatformMBeanServer().isRegistered(second.objectName()));
    } finally {
      for (StatsMXBean b : List.of(first, second)) {
        b.unregister();
      }
    }
  }
}
