package io.hybridcache.core.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.api.CacheConfig;
import io.hybridcache.core.api.HybridCache;
import io.hybridcache.core.api.HybridCacheMXBean;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The "Metrics and JMX" page ({@code src/site/metrics.md}, moved from the README): its example runs as
 * shown, its names are the code's.
 */
class ReadmeMetricsTest {
  private static final Path PAGE = Path.of("../src/site/metrics.md");
  private static final Pattern CODE = Pattern.compile("`([^`]+)`");
  @TempDir Path tmp;

  private static String section() throws Exception {
    String page = Files.readString(PAGE);
    assertTrue(page.startsWith("# Metrics and JMX\n"), PAGE + " is the Metrics and JMX page");
    return page;
  }

  private static Set<String> codeSpans(String text, String regex) {
    Set<String> found = new TreeSet<>();
    Matcher m = CODE.matcher(text.replaceAll("(?s)```.*?```", "")); // prose only, not the fenced blocks
    while (m.find()) {
      if (m.group(1).matches(regex)) {
        found.add(m.group(1));
      }
    }
    return found;
  }

  @Test
  void theExampleRunsAsShown() {
    CacheConfig config = SmallCaches.small(tmp.resolve("rows")).build();
    MeterRegistry registry = new SimpleMeterRegistry();      // or your Prometheus, OTLP... registry
    try (HybridCache cache = HybridCache.open(config)) {
      HybridCacheMetrics.monitor(registry, cache, "rows", "region", "eu");   // tags cache=rows, region=eu
      cache.get("k".getBytes(StandardCharsets.UTF_8));
      double misses = registry.get("cache.gets").tags("result", "miss").functionCounter().count();   // 1.0
      assertEquals(1.0, misses);
      assertEquals(1.0, registry.get("cache.gets").tags("cache", "rows", "region", "eu", "tier", "none")
          .functionCounter().count());
    }
  }

  @Test
  void theMeterTableNamesEveryMeterAndNoOther() throws Exception {
    MeterRegistry registry = new SimpleMeterRegistry();
    try (HybridCache cache = HybridCache.open(SmallCaches.small(tmp.resolve("c")).build())) {
      HybridCacheMetrics.monitor(registry, cache, "c");
    }
    Set<String> registered = registry.getMeters().stream().map(m -> m.getId().getName())
        .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(registered, codeSpans(section(), "(cache|hybridcache)\\.[a-z.]+"));
    Set<String> tagValues = new TreeSet<>();
    for (Meter m : registry.getMeters()) {
      m.getId().getTags().stream().filter(t -> !t.getKey().equals("cache")).forEach(t -> tagValues.add(t.getValue()));
    }
    Set<String> named = new TreeSet<>(); // `tier=dram`, `result=hit,tier=flash`, `queue`: the values
    for (String span : codeSpans(section(), ".+")) {
      Arrays.stream(span.split(",")).map(t -> t.substring(t.indexOf('=') + 1)).forEach(named::add);
    }
    Set<String> unnamed = new TreeSet<>(tagValues);
    unnamed.removeAll(named);
    assertEquals(Set.of(), unnamed, "tag values the page does not name");
  }

  @Test
  void theJmxParagraphGivesTheRegisteredNameAndEveryAttribute() throws Exception {
    String section = section();
    assertTrue(section.contains("`io.hybridcache:type=HybridCache,name=\"NAME\"`"));
    assertTrue(section.contains("`name=\"rows\"`"));
    try (HybridCache cache = HybridCache.open(SmallCaches.small(tmp.resolve("j")).name("rows").jmx(true).build())) {
      assertTrue(ManagementFactory.getPlatformMBeanServer()
          .isRegistered(new ObjectName("io.hybridcache:type=HybridCache,name=\"rows\"")));
    }
    String list = section.substring(section.indexOf("named after it:"), section.indexOf("Each read takes"));
    Set<String> attributes = Arrays.stream(HybridCacheMXBean.class.getMethods()).map(Method::getName)
        .map(n -> n.replaceFirst("^(get|is)", "")).collect(Collectors.toCollection(TreeSet::new));
    assertEquals(attributes, codeSpans(list, "[A-Z][A-Za-z]+"));
  }
}
