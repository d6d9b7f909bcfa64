package io.hybridcache.core.catalog;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Child JVM for {@link CatalogCrashTest}: three threads assign new schemas forever and print each id
 * with its definition after {@code idFor} returned ("A id namespace col,col,..."), until killed.
 */
public final class CatalogCrashChild {
  private CatalogCrashChild() {}

  public static void main(String[] args) {
    Path dir = Path.of(args[0]);
    int round = Integer.parseInt(args[1]);
    SchemaCatalog catalog = SchemaCatalog.open(CatalogConfig.builder(dir).segmentCount(8).build());
    System.out.println("OPEN");
    System.out.flush();
    for (int t = 0; t < 3; t++) {
      int thread = t;
      Thread th = new Thread(() -> {
        Random rnd = new Random(round * 100L + thread);
        for (long n = 0; ; n++) {
          List<String> cols = new ArrayList<>(List.of("r" + round, "t" + thread, "n" + n));
          for (int i = rnd.nextInt(5); i > 0; i--) {
            cols.add("extra" + rnd.nextInt(1000));
          }
          cols = cols.stream().distinct().toList();
          String ns = "ns" + rnd.nextInt(3);
          long id = catalog.idFor(ns, cols);
          synchronized (System.out) {
            System.out.println("A " + id + " " + ns + " " + String.join(",", cols.stream().sorted().toList()));
            System.out.flush();
          }
        }
      });
      th.start();
    }
  }
}
