package io.hybridcache.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.hybridcache.bench.BenchMain;
import io.hybridcache.bench.StatsJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The compare subcommand end to end on a tiny matrix (two stores, two workloads, child JVMs, no fio,
 * no cgroup): every store x workload record carries the keys the issue names, with figures that
 * could only come from a real run, and the charts and Markdown exist.
 */
class CompareCommandTest {
  @TempDir
  Path dir;

  @Test
  void tinyMatrixWritesRecordsChartsAndMarkdown() throws Exception {
    Path json = dir.resolve("compare.json");
    Path out = dir.resolve("out");
    int code = BenchMain.execute("compare", "--stores", "hybridcache,caffeine", "--workloads", "workloadc,workloadd",
        "--workload-dir", "../src/workloads", "--dram", "24m", "--records", "92000", "--seconds", "1", "--warmup", "0.5",
        "--threads", "2", "--no-fio", "--memory-limit", "off", "--out", out.toString(), "--json", json.toString(),
        "--tiny-workloads", "tiny100", "--tiny-records", "380000", "--repetitions", "2");
    assertEquals(BenchMain.OK, code);
    JsonNode root = StatsJson.MAPPER.readTree(json.toFile());
    Set<String> seen = new HashSet<>();
    for (JsonNode r : root.get("records")) {
      if (r.get("workload").asText().equals(CompareRunner.WHOLE_RUN)) {
        for (String key : List.of("store", "disk_bytes_written", "cancelled_write_bytes", "bytes_admitted", "write_amplification")) {
          assertTrue(r.has(key), "whole-run record lacks " + key + ": " + r);
        }
        continue;
      }
      for (String key : List.of("store", "workload", "throughput_ops", "read_p99_us", "hit_ratio", "disk_bytes_written",
          "bytes_admitted", "write_amplification", "major_faults", "index_bytes", "repetition")) {
        assertTrue(r.has(key), "record lacks " + key + ": " + r);
      }
      if (r.get("repetition").asInt() == 1) {
        seen.add(r.get("store").asText() + "/" + r.get("workload").asText());
      }
      if (!r.get("workload").asText().equals("load")) {
        assertTrue(r.get("throughput_ops").asDouble() > 0, r.toString());
        double hit = r.get("hit_ratio").asDouble();
        assertTrue(hit > 0 && hit <= 1, r.toString());
      }
    }
    assertEquals(Set.of("hybridcache/load", "hybridcache/workloadc", "hybridcache/workloadd",
        "caffeine/load", "caffeine/workloadc", "caffeine/workloadd"), seen);
    // 92,000 records of ~1.1 KB in 24 MiB of DRAM: Caffeine alone must miss, ours keeps more on flash
    double caffeineHits = hitRatio(root, "caffeine");
    double oursHits = hitRatio(root, "hybridcache");
    assertTrue(caffeineHits < 0.9, "caffeine hit ratio " + caffeineHits);
    assertTrue(oursHits > caffeineHits, "hybridcache " + oursHits + " vs caffeine " + caffeineHits);
    JsonNode ourLoad = root.at("/records/0");
    assertEquals("hybridcache/load", ourLoad.get("store").asText() + "/" + ourLoad.get("workload").asText());
    assertTrue(ourLoad.get("disk_bytes_written").asLong() > 0, "our load writes to disk");
    // ~92,000 records of ~1.1 KB put in the load: the bytes admitted and a write amplification near 1
    assertTrue(ourLoad.get("bytes_admitted").asLong() > 92_000 * 1000L, ourLoad.toString());
    double wa = ourLoad.get("write_amplification").asDouble();
    assertTrue(wa > 0.5 && wa < 3, "load write amplification " + wa);
    // the whole run, load to close, counts what the windows leave out: at least as many bytes as the load's
    JsonNode whole = record(root, "hybridcache", CompareRunner.WHOLE_RUN, 1);
    assertTrue(whole.get("disk_bytes_written").asLong() >= ourLoad.get("disk_bytes_written").asLong(), whole.toString());
    assertTrue(whole.get("bytes_admitted").asLong() >= ourLoad.get("bytes_admitted").asLong(), whole.toString());
    // ours runs as users run it: the compact index, its DRAM measured and under the charge taken from the budget
    for (JsonNode r : root.get("records")) {
      if (r.get("store").asText().equals("hybridcache") && !r.get("workload").asText().equals(CompareRunner.WHOLE_RUN)) {
        long index = r.get("index_bytes").asLong();
        long charge = r.get("index_charge_bytes").asLong();
        // 92,000 records and D's inserts at 250,000 ops/s x 5% x 1.5 s: 18,750
        assertTrue(index > 0 && charge == 16 * (92_000L + 18_750) && index <= charge,
            "index bytes " + index + " against a charge of " + charge + " (16 B x 110,750 expected entries): " + r);
      }
    }

    // the spread: the leaders (ours, and no disk-backed peer here) ran twice, caffeine (DRAM only) once
    assertEquals(2, runsOf(root, "hybridcache"));
    assertEquals(1, runsOf(root, "caffeine"));
    assertEquals(2, root.at("/summary/0/ours/n").asInt(), root.get("summary").toString());

    // the tiny section: its own load of 380,000 records of tiny100's shape and the objects-held table
    JsonNode tiny = root.get("sections").get(0);
    assertEquals("tiny100", tiny.at("/setup/section").asText());
    assertEquals(380_000, tiny.at("/setup/records").asLong());
    assertEquals(2, runsOf(tiny, "hybridcache"));
    assertTrue(Files.readString(out.resolve("compare.md")).contains("objects held"));
    assertTrue(Files.size(out.resolve("compare-tiny100-throughput.png")) > 100);
    for (String f : List.of("compare.md", "compare-throughput.png", "compare-read-p99.png", "compare-hit-ratio.png")) {
      assertTrue(Files.size(out.resolve(f)) > 100, f);
    }
    assertTrue(Files.readString(out.resolve("compare.md")).contains("|hybridcache|1|workloadc|"));

    Path again = dir.resolve("replot");
    assertEquals(BenchMain.OK, BenchMain.execute("compare", "--replot", json.toString(), "--out", again.toString()));
    assertEquals(Files.readString(out.resolve("compare.md")), Files.readString(again.resolve("compare.md")),
        "--replot redraws the same tables from the JSON");
    assertTrue(Files.size(again.resolve("compare-throughput-disk.png")) > 100);
  }

  @Test
  void theCheckedInReferenceRunStillReplotsWithItsStoreNamedAsWhatItRan() throws Exception {
    Path again = dir.resolve("replot-reference");
    assertEquals(BenchMain.OK, BenchMain.execute("compare", "--replot", "../src/site/compare-quick.json", "--out", again.toString()));
    String md = Files.readString(again.resolve("compare.md"));
    assertTrue(md.contains("|hybridcache-chronicle|1|workloadc|"), "the 2026-11-22 run's hybridcache opened the Chronicle index");
    assertTrue(md.contains("|infinispan|1|workloadc|"), md);
  }

  private static JsonNode record(JsonNode root, String store, String phase, int repetition) {
    for (JsonNode r : root.get("records")) {
      if (r.get("store").asText().equals(store) && r.get("workload").asText().equals(phase)
          && r.get("repetition").asInt() == repetition) {
        return r;
      }
    }
    throw new AssertionError("no " + phase + " record of " + store + " run " + repetition);
  }

  private static int runsOf(JsonNode root, String store) {
    int n = 0;
    for (JsonNode r : root.get("runs")) {
      n += r.get("store").asText().equals(store) && r.get("failure").isNull() ? 1 : 0;
    }
    return n;
  }

  private static double hitRatio(JsonNode root, String store) {
    for (JsonNode r : root.get("records")) {
      if (r.get("store").asText().equals(store) && r.get("workload").asText().equals("workloadc")
          && r.get("repetition").asInt() == 1) {
        return r.get("hit_ratio").asDouble();
      }
    }
    throw new AssertionError("no workloadc record of " + store);
  }

  @Test
  void badArgumentsAreUsageErrors() {
    assertEquals(BenchMain.USAGE, BenchMain.execute("compare", "--stores", "redis"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("compare", "--data-factor", "2"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("compare", "--workloads", "nosuchworkload"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("compare", "--memory-limit", "maybe"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("compare", "--dram", "1m", "--records", "100"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("compare", "--dram", "32m", "--tiny-records", "100"));
    // ours' index and write buffers would leave no DRAM tier: refused before anything runs, naming the figures
    assertEquals(BenchMain.USAGE, BenchMain.execute("compare", "--dram", "8m", "--no-fio", "--memory-limit", "off"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("compare", "--repetitions", "0"));
    assertEquals(BenchMain.USAGE, BenchMain.execute("compare", "--tiny-workloads", "nosuchworkload"));
  }
}
