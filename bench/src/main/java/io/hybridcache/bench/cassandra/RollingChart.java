package io.hybridcache.bench.cassandra;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The rolling-restart plot (XChart): cluster throughput in 10 s windows from 60 s before each
 * round's first stop to the round's end, one line per provider run, one PNG panel per round.
 * Stateless; thread-safe.
 */
final class RollingChart {
  private static final int WIDTH = 1000;
  private static final int HEIGHT = 420;
  private static final int WINDOW = 10;
  private static final int BEFORE = 60;

  private RollingChart() {}

  static Path write(Path file, List<RollingRestartCommand.Run> runs) throws IOException {
    System.setProperty("java.awt.headless", "true");
    List<String> rounds = new ArrayList<>();
    for (RollingRestartCommand.Run r : runs) {
      for (RollingRestartCommand.Round x : r.rounds()) {
        if (!rounds.contains(x.round())) {
          rounds.add(x.round());
        }
      }
    }
    List<XYChart> charts = new ArrayList<>();
    for (String round : rounds) {
      XYChart c = new XYChartBuilder().width(WIDTH).height(HEIGHT)
          .title("Rolling restart (" + round + "): cluster throughput, 10 s windows")
          .xAxisTitle("seconds since the round's first stop").yAxisTitle("ops/s").build();
      c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideSE);
      c.getStyler().setXAxisDecimalPattern("#");
      for (RollingRestartCommand.Run r : runs) {
        for (RollingRestartCommand.Round x : r.rounds()) {
          if (!x.round().equals(round)) {
            continue;
          }
          List<Double> xs = new ArrayList<>();
          List<Double> ys = new ArrayList<>();
          long[] ops = r.opsPerSecond();
          int from = Math.max(0, (int) x.firstStop() - BEFORE);
          int to = Math.min(ops.length, (int) x.end());
          for (int s = from; s + WINDOW <= to; s += WINDOW) {
            xs.add((double) Math.round(s - x.firstStop()));
            ys.add(RollingReport.steady(ops, s, s + WINDOW));
          }
          if (!xs.isEmpty()) {
            XYSeries series = c.addSeries(r.provider() + " #" + r.repetition(), xs, ys);
            series.setMarker(SeriesMarkers.NONE);
          }
        }
      }
      charts.add(c);
    }
    Path abs = file.toAbsolutePath();
    if (abs.getParent() != null) {
      Files.createDirectories(abs.getParent());
    }
    if (charts.isEmpty()) {
      return abs;
    }
    java.awt.image.BufferedImage all = new java.awt.image.BufferedImage(WIDTH, HEIGHT * charts.size(),
        java.awt.image.BufferedImage.TYPE_INT_RGB);
    java.awt.Graphics2D g = all.createGraphics();
    for (int i = 0; i < charts.size(); i++) {
      g.drawImage(BitmapEncoder.getBufferedImage(charts.get(i)), 0, i * HEIGHT, null);
    }
    g.dispose();
    javax.imageio.ImageIO.write(all, "png", abs.toFile());
    return abs;
  }
}
