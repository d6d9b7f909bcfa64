package io.hybridcache.bench.cassandra;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.cql.BoundStatement;
import com.datastax.oss.driver.api.core.cql.ColumnDefinition;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.ResultSet;
import com.datastax.oss.driver.api.core.cql.Row;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB binding for Cassandra over the Apache Cassandra Java driver 4.x (CQL native protocol).
 *
 * <p>Run: {@code java -cp hybridcache-bench.jar site.ycsb.Client -load -db
 * io.hybridcache.bench.cassandra.CqlDB -P src/workloads/workloadb -p cql.hosts=127.0.0.1:19042 -s}.
 * The table must exist: {@link #createTableCql} gives the statement (YCSB's usual layout: a text
 * key {@code y_id} and text fields {@code field0..N}).
 *
 * <p>Properties: {@value #HOSTS} (comma-separated host:port, default 127.0.0.1:19042),
 * {@value #KEYSPACE} (default ycsb), {@value #DATACENTER} (default datacenter1, SimpleSnitch's),
 * {@value #READ_CL} and {@value #WRITE_CL} (default ONE), {@value #TIMEOUT_MS} (default 12000).
 *
 * <p>Concurrency: YCSB makes one DB per client thread; all share one {@link CqlSession}, opened by
 * the first init and closed by the last cleanup (reference-counted under the class lock). Statements
 * are prepared once per distinct text and cached; the driver's session is thread-safe.
 */
public class CqlDB extends DB {
  public static final String HOSTS = "cql.hosts";
  public static final String KEYSPACE = "cql.keyspace";
  public static final String DATACENTER = "cql.datacenter";
  public static final String READ_CL = "cql.read.consistency";
  public static final String WRITE_CL = "cql.write.consistency";
  public static final String TIMEOUT_MS = "cql.timeout.ms";
  private static final String KEY = "y_id";

  private static CqlSession session; // guarded by CqlDB.class
  private static int references; // guarded by CqlDB.class
  private static final Map<String, PreparedStatement> PREPARED = new ConcurrentHashMap<>();

  private ConsistencyLevel readCl;
  private ConsistencyLevel writeCl;

  /** CREATE TABLE of YCSB's layout with the row cache on ({@code rows_per_partition: ALL}). */
  public static String createTableCql(String keyspace, String table, int fieldCount, String extraOptions) {
    StringBuilder sb = new StringBuilder("CREATE TABLE IF NOT EXISTS ").append(keyspace).append('.').append(table)
        .append(" (").append(KEY).append(" text PRIMARY KEY");
    for (int i = 0; i < fieldCount; i++) {
      sb.append(", field").append(i).append(" text");
    }
    sb.append(") WITH caching = {'keys': 'ALL', 'rows_per_partition': 'ALL'}");
    if (extraOptions != null && !extraOptions.isBlank()) {
      sb.append(" AND ").append(extraOptions);
    }
    return sb.toString();
  }

  /** A session to {@code hosts} (host:port,...) in {@code datacenter}, using {@code keyspace} if not null. */
  public static CqlSession connect(String hosts, String datacenter, String keyspace, Duration timeout) {
    List<InetSocketAddress> points = new ArrayList<>();
    for (String h : hosts.split(",")) {
      String t = h.trim();
      int colon = t.lastIndexOf(':');
      points.add(colon < 0 ? new InetSocketAddress(t, 9042)
          : new InetSocketAddress(t.substring(0, colon), Integer.parseInt(t.substring(colon + 1))));
    }
    DriverConfigLoader config = DriverConfigLoader.programmaticBuilder()
        .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, timeout)
        .withDuration(DefaultDriverOption.CONNECTION_INIT_QUERY_TIMEOUT, timeout)
        .withDuration(DefaultDriverOption.METADATA_SCHEMA_REQUEST_TIMEOUT, timeout)
        .withDuration(DefaultDriverOption.CONTROL_CONNECTION_AGREEMENT_TIMEOUT, timeout)
        .build();
    var builder = CqlSession.builder().addContactPoints(points).withLocalDatacenter(datacenter).withConfigLoader(config);
    return keyspace == null ? builder.build() : builder.withKeyspace(keyspace).build();
  }

  @Override
  public void init() throws DBException {
    Properties p = getProperties();
    readCl = level(p, READ_CL);
    writeCl = level(p, WRITE_CL);
    synchronized (CqlDB.class) {
      if (session == null) {
        try {
          session = connect(p.getProperty(HOSTS, "127.0.0.1:19042"), p.getProperty(DATACENTER, "datacenter1"),
              p.getProperty(KEYSPACE, "ycsb"), Duration.ofMillis(Long.parseLong(p.getProperty(TIMEOUT_MS, "12000"))));
        } catch (RuntimeException e) {
          throw new DBException("cannot connect to Cassandra at " + p.getProperty(HOSTS, "127.0.0.1:19042") + ": " + e, e);
        }
      }
      references++;
    }
  }

  private static ConsistencyLevel level(Properties p, String key) throws DBException {
    String v = p.getProperty(key, "ONE");
    try {
      return DefaultConsistencyLevel.valueOf(v);
    } catch (IllegalArgumentException e) {
      throw new DBException(key + ": not a consistency level: " + v);
    }
  }

  @Override
  public void cleanup() {
    synchronized (CqlDB.class) {
      if (--references == 0 && session != null) {
        session.close();
        session = null;
        PREPARED.clear();
      }
    }
  }

  private static PreparedStatement prepare(String cql) {
    return PREPARED.computeIfAbsent(cql, session::prepare);
  }

  private static String columns(Set<String> fields) {
    return fields == null ? "*" : String.join(", ", fields);
  }

  @Override
  public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
    try {
      BoundStatement b = prepare("SELECT " + columns(fields) + " FROM " + table + " WHERE " + KEY + " = ?")
          .bind(key).setConsistencyLevel(readCl);
      Row row = session.execute(b).one();
      if (row == null) {
        return Status.NOT_FOUND;
      }
      copy(row, result);
      return Status.OK;
    } catch (RuntimeException e) {
      return Status.ERROR;
    }
  }

  private static void copy(Row row, Map<String, ByteIterator> into) {
    for (ColumnDefinition c : row.getColumnDefinitions()) {
      String name = c.getName().asInternal();
      if (!name.equals(KEY)) {
        String v = row.getString(name);
        into.put(name, v == null ? null : new ByteArrayByteIterator(v.getBytes(StandardCharsets.UTF_8)));
      }
    }
  }

  @Override
  public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                     Vector<HashMap<String, ByteIterator>> result) {
    try {
      BoundStatement b = prepare("SELECT " + columns(fields) + " FROM " + table + " WHERE token(" + KEY
          + ") >= token(?) LIMIT ?").bind(startkey, recordcount).setConsistencyLevel(readCl);
      ResultSet rs = session.execute(b);
      for (Row row : rs) {
        HashMap<String, ByteIterator> m = new HashMap<>();
        copy(row, m);
        result.add(m);
      }
      return Status.OK;
    } catch (RuntimeException e) {
      return Status.ERROR;
    }
  }

  @Override
  public Status update(String table, String key, Map<String, ByteIterator> values) {
    List<String> names = new ArrayList<>(values.keySet());
    StringBuilder cql = new StringBuilder("UPDATE ").append(table).append(" SET ");
    for (int i = 0; i < names.size(); i++) {
      cql.append(i == 0 ? "" : ", ").append(names.get(i)).append(" = ?");
    }
    cql.append(" WHERE ").append(KEY).append(" = ?");
    Object[] args = new Object[names.size() + 1];
    for (int i = 0; i < names.size(); i++) {
      args[i] = values.get(names.get(i)).toString();
    }
    args[names.size()] = key;
    return write(cql.toString(), args);
  }

  @Override
  public Status insert(String table, String key, Map<String, ByteIterator> values) {
    List<String> names = new ArrayList<>(values.keySet());
    StringBuilder cql = new StringBuilder("INSERT INTO ").append(table).append(" (").append(KEY);
    names.forEach(n -> cql.append(", ").append(n));
    cql.append(") VALUES (?").append(", ?".repeat(names.size())).append(')');
    Object[] args = new Object[names.size() + 1];
    args[0] = key;
    for (int i = 0; i < names.size(); i++) {
      args[i + 1] = values.get(names.get(i)).toString();
    }
    return write(cql.toString(), args);
  }

  @Override
  public Status delete(String table, String key) {
    return write("DELETE FROM " + table + " WHERE " + KEY + " = ?", key);
  }

  private Status write(String cql, Object... args) {
    try {
      session.execute(prepare(cql).bind(args).setConsistencyLevel(writeCl));
      return Status.OK;
    } catch (RuntimeException e) {
      return Status.ERROR;
    }
  }
}
