package demo;

import java.util.concurrent.atomic.AtomicLong;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.stereotype.Service;

/** The slow source the cache saves: each load is counted, so the driver sees what the cache served. */
@Service
public class ItemService {
  private final AtomicLong loads = new AtomicLong();
  private final AtomicLong labelLoads = new AtomicLong();

  @Cacheable("items")
  public String item(long id) {
    loads.incrementAndGet();
    return value(id);
  }

  /** A model value under a two-part key (Spring's SimpleKey): both Java-serialized, through the serial-filter. */
  @Cacheable("labels")
  public Label label(long id, String lang) {
    labelLoads.incrementAndGet();
    return new Label(id, lang, "label-" + id + "-" + lang);
  }

  /** The value of item {@code id}: "item-ID-" and 1,000 letters that depend on the id (about 1 KiB). */
  static String value(long id) {
    StringBuilder b = new StringBuilder("item-").append(id).append('-');
    for (int i = 0; i < 1000; i++) {
      b.append((char) ('a' + (id + i) % 26));
    }
    return b.toString();
  }

  long loads() {
    return loads.get();
  }

  long labelLoads() {
    return labelLoads.get();
  }
}
