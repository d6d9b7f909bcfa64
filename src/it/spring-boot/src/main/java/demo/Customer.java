package demo;

import jakarta.persistence.Cacheable;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import org.hibernate.annotations.Cache;
import org.hibernate.annotations.CacheConcurrencyStrategy;

/** A row cached in Hibernate's second-level cache (region demo.Customer, a JCache cache). */
@Entity
@Cacheable
@Cache(usage = CacheConcurrencyStrategy.READ_WRITE)
public class Customer {
  @Id
  private Long id;
  private String name;

  protected Customer() {}

  Customer(Long id, String name) {
    this.id = id;
    this.name = name;
  }

  public Long getId() {
    return id;
  }

  public String getName() {
    return name;
  }

  /** The name of customer {@code id}. */
  static String nameOf(long id) {
    return "customer-" + id + "-" + "n".repeat(200);
  }
}
