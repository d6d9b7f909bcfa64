package io.hybridcache.bench.jmh;

import io.hybridcache.bench.BenchDirs;
import io.hybridcache.bench.catalog.DataSets;
import io.hybridcache.core.catalog.CatalogConfig;
import io.hybridcache.core.catalog.Row;
import io.hybridcache.core.catalog.RowCodec;
import io.hybridcache.core.catalog.Schema;
import io.hybridcache.core.catalog.SchemaCatalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Timings of the schema catalogue and the row codec, single-threaded, average time per call.
 *
 * <p>Workload: a catalogue on a temporary directory holding the schemas below (all lookups hit:
 * nothing is assigned or synced while measuring).
 * <ul>
 *   <li>{@code idForExisting}: {@link SchemaCatalog#idFor} of the 10 YCSB field names (an existing
 *       schema; names passed unsorted, so the call sorts and validates them).
 *   <li>{@code schemaById}: {@link SchemaCatalog#schema} of that id.
 *   <li>{@code encode10} / {@code decode10}: a YCSB record (10 columns x 100 B) with {@code mode}
 *       {@code catalog} (schema id, no names) or {@code inline} (names in the row: the baseline).
 *   <li>{@code decode23} / {@code slice2of23}: a TPC-DS store_sales row (23 text columns) decoded whole,
 *       and only {@code ss_item_sk} and {@code ss_net_paid} of it (the others skipped by length).
 * </ul>
 *
 * <p>Run: {@code java -jar bench/target/hybridcache-bench.jar jmh -f 1 -wi 2 -i 3 -w 1s -r 1s Catalog}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class CatalogBenchmark {
  @Param({"catalog", "inline"})
  public String mode;

  private Path dir;
  private SchemaCatalog catalog;
  private RowCodec codec;
  private RowCodec storeSalesCodec;
  private List<String> ycsbColumns;
  private long ycsbId;
  private Row ycsbRow;
  private byte[] ycsbBytes;
  private byte[] storeSalesBytes;
  private RowCodec.Slice slice;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    dir = Files.createTempDirectory("hybridcache-jmh-catalog");
    catalog = SchemaCatalog.open(CatalogConfig.builder(dir).namespaceCap("inline", 0).build());
    codec = new RowCodec(catalog, mode);
    storeSalesCodec = new RowCodec(catalog, "store_sales");
    Random rnd = new Random(1);
    ycsbRow = DataSets.ycsb(rnd);
    ycsbBytes = codec.encode(ycsbRow);
    ycsbColumns = new ArrayList<>(ycsbRow.columns());
    Collections.shuffle(ycsbColumns, rnd);
    ycsbId = catalog.idFor(ycsbColumns);
    storeSalesBytes = storeSalesCodec.encode(DataSets.storeSales(rnd));
    slice = storeSalesCodec.slice("ss_item_sk", "ss_net_paid");
  }

  @TearDown(Level.Trial)
  public void tearDown() throws IOException {
    catalog.close();
    BenchDirs.deleteTree(dir);
  }

  @Benchmark
  public long idForExisting() {
    return catalog.idFor(ycsbColumns);
  }

  @Benchmark
  public Schema schemaById() {
    return catalog.schema(ycsbId);
  }

  @Benchmark
  public byte[] encode10() {
    return codec.encode(ycsbRow);
  }

  @Benchmark
  public Row decode10() {
    return codec.decode(ycsbBytes);
  }

  @Benchmark
  public Row decode23() {
    return storeSalesCodec.decode(storeSalesBytes);
  }

  @Benchmark
  public Row slice2of23() {
    return slice.decode(storeSalesBytes);
  }
}
