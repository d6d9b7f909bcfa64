package io.hybridcache.bench.placement;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * Bar charts of device write amplification per workload and mapper, one panel per utilization, side
 * by side in one PNG (XChart). Stateless; thread-safe (each call draws its own image).
 */
final class PlacementChart {
  private static final int WIDTH = 760;
  private static final int HEIGHT = 420;

  private PlacementChart() {}

  static Path write(Path file, List<PlacementCommand.Row> rows, List<Double> utilizations) throws IOException {
    System.setProperty("java.awt.headless", "true");
    BufferedImage all = new BufferedImage(WIDTH * utilizations.size(), HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = all.createGraphics();
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, all.getWidth(), all.getHeight());
    double max = 1.05;
    for (PlacementCommand.Row r : rows) {
      if (!Double.isNaN(r.deviceWaf())) {
        max = Math.max(max, r.deviceWaf() * 1.05);
      }
    }
    for (int i = 0; i < utilizations.size(); i++) {
      double u = utilizations.get(i);
      g.drawImage(BitmapEncoder.getBufferedImage(panel(rows, u, max)), i * WIDTH, 0, null);
    }
    g.dispose();
    Path abs = file.toAbsolutePath();
    if (abs.getParent() != null) {
      Files.createDirectories(abs.getParent());
    }
    ImageIO.write(all, "png", abs.toFile());
    return abs;
  }

  /** Short axis labels for the command's workloads. */
  static String label(String workload) {
    return switch (workload) {
      case "workloada" -> "A";
      case "workloadf" -> "F";
      case "twotables" -> "two tables";
      case "twotables-oneclass" -> "two tables, 1 class";
      default -> workload;
    };
  }

  private static CategoryChart panel(List<PlacementCommand.Row> rows, double u, double yMax) {
    CategoryChart c = new CategoryChartBuilder().width(WIDTH).height(HEIGHT)
        .title(String.format(Locale.ROOT, "Device write amplification, %.0f%% utilization", 100 * u))
        .xAxisTitle("workload").yAxisTitle("device WAF (FTL simulator)").build();
    c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
    c.getStyler().setYAxisMin(1.0);
    c.getStyler().setYAxisMax(yMax);
    c.getStyler().setYAxisDecimalPattern("0.00");
    c.getStyler().setChartBackgroundColor(Color.WHITE);
    Set<String> workloads = new LinkedHashSet<>();
    Set<String> mappers = new LinkedHashSet<>();
    for (PlacementCommand.Row r : rows) {
      workloads.add(r.workload());
      mappers.add(r.mapper());
    }
    for (String m : mappers) {
      List<String> xs = new ArrayList<>();
      List<Double> ys = new ArrayList<>();
      for (String w : workloads) {
        for (PlacementCommand.Row r : rows) {
          if (r.workload().equals(w) && r.mapper().equals(m) && r.utilization() == u) {
            xs.add(label(w));
            ys.add(Double.isNaN(r.deviceWaf()) ? 1.0 : r.deviceWaf());
          }
        }
      }
      if (!xs.isEmpty()) {
        c.addSeries(m.equals("single") ? "1 stream" : m, xs, ys);
      }
    }
    return c;
  }
}
