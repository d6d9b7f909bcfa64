package demo;

import jakarta.persistence.EntityManagerFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Two application threads on one customer: a writer commits revisions 1..N (the name "race-R" and one more
 * purchase each), a reader reads the customer (entity region), its purchases (collection region) and its name by
 * the cacheable query (query-results region) in a loop. A read is stale if it shows a revision older than the
 * last one committed before the read began: the count of such reads must be 0.
 */
@Service
public class StaleReadCheck {
  private final CustomerRepository customers;
  private final TransactionTemplate write;
  private final TransactionTemplate read;
  private final Statistics hibernate;

  public StaleReadCheck(CustomerRepository customers, PlatformTransactionManager transactions,
      EntityManagerFactory jpa) {
    this.customers = customers;
    this.write = new TransactionTemplate(transactions);
    this.read = new TransactionTemplate(transactions);
    this.read.setReadOnly(true);
    this.hibernate = jpa.unwrap(SessionFactory.class).getStatistics();
  }

  static int revisionOf(String name) {
    return Integer.parseInt(name.substring(name.lastIndexOf('-') + 1));
  }

  /** Runs {@code rounds} revisions on customer {@code id} (made if absent) against a reader; the figures. */
  public Map<String, Object> run(long id, int rounds) throws InterruptedException {
    int start = write.execute(s -> customers.findById(id).map(c -> revisionOf(c.getName()))
        .orElseGet(() -> {
          customers.save(new Customer(id, "race-0"));
          return 0;
        }));
    long hits = hibernate.getSecondLevelCacheHitCount();
    long misses = hibernate.getSecondLevelCacheMissCount();
    long queryHits = hibernate.getQueryCacheHitCount();
    long sql = hibernate.getPrepareStatementCount();
    AtomicInteger committed = new AtomicInteger(start);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread writer = new Thread(() -> {
      try {
        for (int r = start + 1; r <= start + rounds; r++) {
          int revision = r;
          write.executeWithoutResult(s -> {
            Customer c = customers.findById(id).orElseThrow();
            c.setName("race-" + revision);
            c.addPurchase(new Purchase(Purchase.idOf(id, revision), revision));
          });
          committed.set(revision);
        }
      } catch (Throwable t) {
        failure.set(t);
      }
    }, "race-writer");
    int[] reads = new int[1];
    int[] stale = new int[1];
    Thread reader = new Thread(() -> {
      try {
        while (writer.isAlive()) {
          int before = committed.get();
          int[] seen = read.execute(s -> customers.findById(id)
              .map(c -> new int[] {revisionOf(c.getName()), c.getPurchases().size()}).orElseThrow());
          int byQuery = revisionOf(read.execute(s -> customers.nameByQuery(id)));
          reads[0]++;
          if (seen[0] < before || seen[1] < before || byQuery < before) {
            stale[0]++;
          }
        }
      } catch (Throwable t) {
        failure.set(t);
      }
    }, "race-reader");
    writer.start();
    reader.start();
    writer.join();
    reader.join();
    if (failure.get() != null) {
      throw new IllegalStateException("the race failed", failure.get());
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("rounds", rounds);
    m.put("reads", reads[0]);
    m.put("staleReads", stale[0]);
    m.put("l2Hits", hibernate.getSecondLevelCacheHitCount() - hits);
    m.put("l2Misses", hibernate.getSecondLevelCacheMissCount() - misses);
    m.put("queryCacheHits", hibernate.getQueryCacheHitCount() - queryHits);
    m.put("sqlStatements", hibernate.getPrepareStatementCount() - sql);
    m.put("expected", start + rounds);
    m.put("name", read.execute(s -> customers.findById(id).orElseThrow().getName()));
    m.put("purchases", read.execute(s -> customers.findById(id).orElseThrow().getPurchases().size()));
    m.put("nameByQuery", read.execute(s -> customers.nameByQuery(id)));
    return m;
  }
}
