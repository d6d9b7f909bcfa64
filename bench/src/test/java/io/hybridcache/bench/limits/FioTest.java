package io.hybridcache.bench.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class FioTest {
  private static final String REPORT = """
      fio: some warning before the report
      {
        "fio version" : "fio-3.33",
        "jobs" : [
          {
            "jobname" : "randread1",
            "error" : 0,
            "job_runtime" : 10000,
            "usr_cpu" : 2.0,
            "sys_cpu" : 14.0,
            "read" : {
              "total_ios" : 163845,
              "io_bytes" : 671088640,
              "bw_bytes" : 67108864,
              "iops" : 16384.5,
              "runtime" : 10000,
              "clat_ns" : { "percentile" : { "50.000000" : 39424, "99.000000" : 93184 } }
            },
            "write" : { "io_bytes" : 0, "bw_bytes" : 0, "iops" : 0.0, "runtime" : 0 }
          }
        ]
      }
      """;

  @Test
  void parsesTheJsonReport() throws IOException {
    Fio.Result r = Fio.parse(REPORT, "read");
    assertEquals(16384.5, r.iops());
    assertEquals(64.0, r.mibPerSec());
    assertEquals(39.424, r.p50Us(), 1e-9);
    assertEquals(93.184, r.p99Us(), 1e-9);
    assertEquals(10.0, r.runtimeSec());
    assertEquals(671088640, r.ioBytes());
    assertEquals(1600.0 * 1000 / 163845, r.cpuUsPerIo(), 1e-9); // 16% of 10,000 ms over its I/Os
    assertEquals(Double.NaN, Fio.parse(REPORT.replace("\"usr_cpu\"", "\"other\""), "read").cpuUsPerIo());
  }

  @Test
  void failsOnMissingOrFailedReports() {
    assertThrows(IOException.class, () -> Fio.parse("fio: command not understood", "read"));
    assertThrows(IOException.class, () -> Fio.parse(REPORT.replace("\"error\" : 0", "\"error\" : 5"), "read"));
    assertThrows(IOException.class, () -> Fio.parse(REPORT, "trim"));
  }

  @Test
  void missingExecutableIsReported() throws Exception {
    Fio fio = new Fio("/nonexistent/fio");
    assertEquals(null, fio.version());
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    assertEquals(null, fio.ensure(true, new java.io.PrintStream(bytes, true)));
    org.junit.jupiter.api.Assertions.assertTrue(bytes.toString().contains("apt-get install"), bytes.toString());
  }
}
