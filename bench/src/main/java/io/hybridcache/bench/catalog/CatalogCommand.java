package io.hybridcache.bench.catalog;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.BenchDirs;
import io.hybridcache.bench.BenchMain;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.bench.TextTable;
import io.hybridcache.core.catalog.CatalogConfig;
import io.hybridcache.core.catalog.Row;
import io.hybridcache.core.catalog.RowCodec;
import io.hybridcache.core.catalog.SchemaCatalog;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Footprint of rows with inline column names against catalogue encoding (CaSSanDra paper, section VI-B;
 * the document-store blow-up of the MongoDB/TPC-DS seed), on three deterministic data sets
 * ({@link DataSets}): YCSB records, the paper's set-up, TPC-DS store_sales documents.
 *
 * <p>Measures, per data set: {@code bytes_inline} (every row in {@link RowCodec}'s inline-names form:
 * the same framing with each column's name written before its value, what a schema-less store keeps),
 * {@code bytes_catalog} (schema id + values, plus the catalogue's own definition records once),
 * {@code saving_ratio} = 1 - catalog / inline, the schema count, and {@code bytes_bson} (the same rows
 * as BSON documents: values as strings for store_sales, binary otherwise, no {@code _id}); for
 * store_sales also {@code bytes_text} (the pipe-delimited flat file dsdgen writes). Each row is decoded
 * back and compared, so a figure never comes from a broken encoding.
 *
 * <p>Run: {@code java -jar bench/target/hybridcache-bench.jar catalog [--rows N] [--json FILE]}
 * (100k rows per data set, a few seconds).
 */
@Command(name = "catalog", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Footprint of rows with inline column names vs catalogue encoding on three data sets",
        "(YCSB records, the CaSSanDra paper's set-up, TPC-DS store_sales documents); deterministic."})
public final class CatalogCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--rows", paramLabel = "N", description = "rows per data set (default: ${DEFAULT-VALUE})")
  int rows = 100_000;

  @Option(names = "--seed", paramLabel = "N", description = "random seed (default: ${DEFAULT-VALUE})")
  long seed = 42;

  @Option(names = "--json", paramLabel = "FILE", description = "also write the figures as JSON to FILE")
  Path json;

  /** One data set's figures. */
  record Footprint(String name, long rows, long schemas, long bytesInline, long bytesCatalogRows,
      long definitionBytes, long bytesBson, long bytesText) {
    long bytesCatalog() {
      return bytesCatalogRows + definitionBytes;
    }

    double savingRatio() {
      return 1.0 - (double) bytesCatalog() / bytesInline;
    }
  }

  @Override
  public Integer call() throws Exception {
    if (rows <= 0) {
      throw new ParameterException(spec.commandLine(), "--rows must be > 0");
    }
    Path dir = Files.createTempDirectory("hybridcache-catalog-bench");
    Map<String, Footprint> results = new LinkedHashMap<>();
    try (SchemaCatalog catalog = SchemaCatalog.open(CatalogConfig.builder(dir).namespaceCap("inline", 0).build())) {
      results.put("ycsb", measure(catalog, "ycsb", DataSets::ycsb, false));
      results.put("paper", measure(catalog, "paper", DataSets::paper, false));
      results.put("tpcds_store_sales", measure(catalog, "tpcds_store_sales", DataSets::storeSales, true));
    } finally {
      BenchDirs.deleteTree(dir);
    }
    print(System.out, results);
    if (json != null) {
      ObjectNode n = StatsJson.MAPPER.createObjectNode();
      n.put("rows_per_data_set", rows);
      n.put("seed", seed);
      ObjectNode sets = n.putObject("data_sets");
      results.forEach((k, f) -> {
        ObjectNode o = sets.putObject(k);
        o.put("rows", f.rows());
        o.put("schemas", f.schemas());
        o.put("bytes_inline", f.bytesInline());
        o.put("bytes_catalog", f.bytesCatalog());
        o.put("bytes_catalog_rows", f.bytesCatalogRows());
        o.put("catalog_definition_bytes", f.definitionBytes());
        o.put("saving_ratio", f.savingRatio());
        o.put("bytes_bson", f.bytesBson());
        o.put("saving_ratio_vs_bson", 1.0 - (double) f.bytesCatalog() / f.bytesBson());
        if (f.bytesText() > 0) {
          o.put("bytes_text", f.bytesText());
        }
      });
      System.err.println("catalog: wrote " + StatsJson.writeFile(json, n));
    }
    return BenchMain.OK;
  }

  Footprint measure(SchemaCatalog catalog, String name, Function<Random, Row> gen, boolean textValues) {
    RowCodec codec = new RowCodec(catalog, name);
    RowCodec inline = new RowCodec(catalog, "inline");
    Random rnd = new Random(seed);
    long bytesInline = 0;
    long bytesCatalog = 0;
    long bson = 0;
    long text = 0;
    Set<Long> ids = new HashSet<>();
    for (int i = 0; i < rows; i++) {
      Row row = gen.apply(rnd);
      byte[] in = inline.encode(row);
      byte[] cat = codec.encode(row);
      if (!row.equals(codec.decode(cat)) || !row.equals(inline.decode(in))) {
        throw new IllegalStateException(name + " row " + i + " did not round-trip");
      }
      bytesInline += in.length;
      bytesCatalog += cat.length;
      codec.forEachSchemaId(cat, ids::add);
      bson += bsonBytes(row);
      if (textValues) {
        text += textBytes(row);
      }
    }
    long definitions = 0;
    for (long id : ids) {
      definitions += catalog.schema(id).storedBytes();
    }
    return new Footprint(name, rows, ids.size(), bytesInline, bytesCatalog, definitions, bson, text);
  }

  /**
   * BSON document size: int32 length, per field a type byte, the name as a cstring and the value, then
   * a NUL. A string value (int32 length, bytes, NUL) and a binary one (int32 length, subtype, bytes) both
   * cost 5 + length bytes.
   */
  static long bsonBytes(Row row) {
    long n = 4 + 1;
    for (String c : row.columns()) {
      n += 1 + c.getBytes(java.nio.charset.StandardCharsets.UTF_8).length + 1 + 5 + row.bytes(c).length;
    }
    return n;
  }

  /** The dsdgen flat-file line: values separated by '|', with a trailing '|' and newline. */
  static long textBytes(Row row) {
    long n = 1;
    for (String c : row.columns()) {
      n += row.bytes(c).length + 1;
    }
    return n;
  }

  private static void print(PrintStream out, Map<String, Footprint> results) {
    TextTable t = new TextTable("data set", "rows", "schemas", "bytes inline", "bytes catalog", "saving",
        "bytes BSON", "saving vs BSON");
    for (Footprint f : results.values()) {
      t.row(f.name(), f.rows(), f.schemas(), f.bytesInline(), f.bytesCatalog(),
          String.format(java.util.Locale.ROOT, "%.1f%%", 100 * f.savingRatio()), f.bytesBson(),
          String.format(java.util.Locale.ROOT, "%.1f%%", 100 * (1.0 - (double) f.bytesCatalog() / f.bytesBson())));
    }
    t.print(out);
    Footprint tpc = results.get("tpcds_store_sales");
    if (tpc != null && tpc.bytesText() > 0) {
      out.printf(java.util.Locale.ROOT, "store_sales as text %,d B; as BSON %.2fx that; catalogue-encoded %.2fx%n",
          tpc.bytesText(), (double) tpc.bytesBson() / tpc.bytesText(), (double) tpc.bytesCatalog() / tpc.bytesText());
    }
    out.flush();
  }

}
