package io.hybridcache.bench.compare;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * Bar charts of a comparison (XChart), one PNG per figure: throughput, read p99 and
 * hit ratio, grouped by workload, one bar per store. Stateless; thread-safe.
 */
final class CompareChart {
  private static final int WIDTH = 1000;
  private static final int HEIGHT = 480;

  private CompareChart() {}

  /**
   * Writes PREFIX-throughput.png, PREFIX-throughput-disk.png (disk-backed stores only: DRAM-only
   * ones are 10-100x faster and flatten the others), PREFIX-read-p99.png and PREFIX-hit-ratio.png; a bar is
   * the median over the store's runs.
   */
  static List<Path> write(Path dir, CompareReport report, String prefix) throws IOException {
    System.setProperty("java.awt.headless", "true");
    List<Path> files = new ArrayList<>();
    files.add(chart(dir.resolve(prefix + "-throughput.png"), report, report.storeNames(), "throughput_ops",
        "Throughput (ops/s, higher is better)"));
    files.add(chart(dir.resolve(prefix + "-throughput-disk.png"), report, report.diskBackedStoreNames(), "throughput_ops",
        "Throughput of the disk-backed stores (ops/s, higher is better)"));
    files.add(chart(dir.resolve(prefix + "-read-p99.png"), report, report.storeNames(), "read_p99_us", "Read p99 latency (us, lower is better)"));
    files.add(chart(dir.resolve(prefix + "-hit-ratio.png"), report, report.storeNames(), "hit_ratio", "Reads that found their record (hit ratio)"));
    return files;
  }

  private static Path chart(Path file, CompareReport report, List<String> stores, String key, String title)
      throws IOException {
    CategoryChart c = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title)
        .xAxisTitle("workload").yAxisTitle("").build();
    c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
    c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
    List<String> workloads = report.workloads();
    for (String store : stores) {
      List<Double> ys = new ArrayList<>();
      boolean any = false;
      for (String w : workloads) {
        double v = report.median(store, w, key);
        any |= !Double.isNaN(v);
        ys.add(Double.isNaN(v) ? 0 : v);
      }
      if (any) {
        c.addSeries(store, workloads, ys);
      }
    }
    if (c.getSeriesMap().isEmpty()) {
      c.addSeries("no data", workloads, workloads.stream().map(w -> 0.0).toList());
    }
    BitmapEncoder.saveBitmap(c, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    return file.toAbsolutePath();
  }
}
