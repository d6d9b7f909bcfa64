package io.hybridcache.bench.mongo;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.BenchDirs;
import io.hybridcache.bench.BenchMain;
import io.hybridcache.bench.StatsJson;
import io.hybridcache.bench.TextTable;
import io.hybridcache.core.catalog.CatalogConfig;
import io.hybridcache.core.catalog.SchemaCatalog;
import io.hybridcache.mongo.DocumentCodec;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.bson.Document;
import org.bson.RawBsonDocument;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Document footprint as BSON against the Mongo bridge's catalogue encoding ({@link DocumentCodec}),
 * on deterministic TPC-DS-shaped documents ({@link TpcdsDocuments}: store_sales, item, customer,
 * date_dim, row counts in the proportions of the seed's Table 4), for two data models of the MongoDB
 * analytical-queries seed: {@code normalized} (one collection per table) and {@code denormalized}
 * (store_sales with its date, item and customer documents embedded, the seed's EmbedDocuments).
 *
 * <p>Measures per model and per collection: {@code bytes_bson} (the documents' BSON, {@code _id}
 * included: what MongoDB stores before compression and indexes), {@code bytes_catalog} (the cache
 * values the bridge stores, plus the catalogue's definition records once), {@code saving_ratio} =
 * 1 - catalog / bson, and the schema count. Every document is decoded back and compared byte for byte.
 *
 * <p>Run: {@code java -jar bench/target/hybridcache-bench.jar mongo [--scale 0.01] [--json FILE]}
 * (scale 0.01: 28,804 store_sales rows; a few seconds).
 */
@Command(name = "mongo", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Footprint of TPC-DS-shaped documents as BSON vs catalogue-encoded (the Mongo bridge's cache values),",
        "normalized (one collection per table) and denormalized (dimensions embedded in store_sales); deterministic.",
        "For YCSB through the bridge vs direct to a server: ycsb --db mongo-bridge | --db mongo."})
public final class MongoCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--scale", paramLabel = "F", description = "fraction of the 1 GB data set's row counts, in (0, 1] (default: ${DEFAULT-VALUE})")
  double scale = 0.01;

  @Option(names = "--seed", paramLabel = "N", description = "random seed (default: ${DEFAULT-VALUE})")
  long seed = 42;

  @Option(names = "--json", paramLabel = "FILE", description = "also write the figures as JSON to FILE")
  Path json;

  /** Bytes of one set of documents. */
  record Footprint(long documents, long bytesBson, long bytesCatalogValues, long definitionBytes, long schemas) {
    long bytesCatalog() {
      return bytesCatalogValues + definitionBytes;
    }

    double savingRatio() {
      return 1.0 - (double) bytesCatalog() / bytesBson;
    }

    Footprint plus(Footprint o) {
      return new Footprint(documents + o.documents, bytesBson + o.bytesBson, bytesCatalogValues + o.bytesCatalogValues,
          definitionBytes + o.definitionBytes, schemas + o.schemas);
    }
  }

  @Override
  public Integer call() throws Exception {
    if (!(scale > 0 && scale <= 1)) {
      throw new ParameterException(spec.commandLine(), "--scale must be in (0, 1], was " + scale);
    }
    TpcdsDocuments gen = new TpcdsDocuments(seed, scale);
    List<Document> dates = gen.dateDim();
    List<Document> items = gen.item();
    List<Document> customers = gen.customer();
    List<Document> sales = gen.storeSales(dates.size(), items.size(), customers.size());
    Map<String, Map<String, Footprint>> models = new LinkedHashMap<>();
    Path dir = Files.createTempDirectory("hybridcache-mongo-bench");
    try (SchemaCatalog catalog = SchemaCatalog.open(CatalogConfig.builder(dir).directIo(false).build())) {
      Map<String, Footprint> normalized = new LinkedHashMap<>();
      normalized.put("store_sales", measure(catalog, "tpcds.store_sales", sales));
      normalized.put("item", measure(catalog, "tpcds.item", items));
      normalized.put("customer", measure(catalog, "tpcds.customer", customers));
      normalized.put("date_dim", measure(catalog, "tpcds.date_dim", dates));
      models.put("normalized", normalized);
      models.put("denormalized", Map.of("store_sales", measure(catalog, "tpcds_denormalized.store_sales",
          TpcdsDocuments.denormalized(sales, dates, items, customers))));
    } finally {
      BenchDirs.deleteTree(dir);
    }
    print(System.out, models);
    if (json != null) {
      System.err.println("mongo: wrote " + StatsJson.writeFile(json, toJson(models)));
    }
    return BenchMain.OK;
  }

  static Footprint measure(SchemaCatalog catalog, String namespace, List<Document> docs) {
    DocumentCodec codec = new DocumentCodec(catalog, namespace);
    org.bson.codecs.DocumentCodec bsonCodec = new org.bson.codecs.DocumentCodec();
    long bson = 0;
    long values = 0;
    Set<Long> ids = new HashSet<>();
    for (Document d : docs) {
      ByteBuffer bb = new RawBsonDocument(d, bsonCodec).getByteBuffer().asNIO();
      byte[] raw = new byte[bb.remaining()];
      bb.get(raw);
      byte[] value = codec.encode(raw);
      if (!Arrays.equals(raw, codec.decode(value))) {
        throw new IllegalStateException(namespace + ": document " + d.get("_id") + " did not round-trip");
      }
      bson += raw.length;
      values += value.length;
      codec.forEachSchemaId(value, ids::add);
    }
    long definitions = 0;
    for (long id : ids) {
      definitions += catalog.schema(id).storedBytes();
    }
    return new Footprint(docs.size(), bson, values, definitions, ids.size());
  }

  private static Footprint total(Map<String, Footprint> collections) {
    return collections.values().stream().reduce(new Footprint(0, 0, 0, 0, 0), Footprint::plus);
  }

  private ObjectNode toJson(Map<String, Map<String, Footprint>> models) {
    ObjectNode n = StatsJson.MAPPER.createObjectNode();
    n.put("scale", scale);
    n.put("seed", seed);
    n.put("row_counts_from", "seed mongodb-analytical-queries-sharded, Table 4 (1GB) x scale");
    ArrayNode arr = n.putArray("models");
    models.forEach((model, collections) -> {
      ObjectNode m = arr.addObject();
      m.put("model", model);
      put(m, total(collections));
      ObjectNode cs = m.putObject("collections");
      collections.forEach((name, f) -> put(cs.putObject(name), f));
    });
    return n;
  }

  private static void put(ObjectNode o, Footprint f) {
    o.put("documents", f.documents());
    o.put("bytes_bson", f.bytesBson());
    o.put("bytes_catalog", f.bytesCatalog());
    o.put("bytes_catalog_values", f.bytesCatalogValues());
    o.put("catalog_definition_bytes", f.definitionBytes());
    o.put("saving_ratio", f.savingRatio());
    o.put("schemas", f.schemas());
    o.put("bson_bytes_per_document", (double) f.bytesBson() / f.documents());
    o.put("catalog_bytes_per_document", (double) f.bytesCatalogValues() / f.documents());
  }

  private static void print(PrintStream out, Map<String, Map<String, Footprint>> models) {
    TextTable t = new TextTable("model", "collection", "documents", "bytes BSON", "bytes catalogue", "saving",
        "B/doc BSON", "B/doc catalogue", "schemas");
    models.forEach((model, collections) -> {
      collections.forEach((name, f) -> row(t, model, name, f));
      if (collections.size() > 1) {
        row(t, model, "(all)", total(collections));
      }
    });
    t.print(out);
    out.flush();
  }

  private static void row(TextTable t, String model, String name, Footprint f) {
    t.row(model, name, f.documents(), f.bytesBson(), f.bytesCatalog(),
        String.format(Locale.ROOT, "%.1f%%", 100 * f.savingRatio()), (double) f.bytesBson() / f.documents(),
        (double) f.bytesCatalogValues() / f.documents(), f.schemas());
  }
}
