package demo;

import jakarta.persistence.CascadeType;
import jakarta.persistence.Cacheable;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.OneToMany;
import java.util.ArrayList;
import java.util.List;
import org.hibernate.annotations.Cache;
import org.hibernate.annotations.CacheConcurrencyStrategy;

/**
 * A row cached in Hibernate's second-level cache (region demo.Customer, a JCache cache), with its purchases
 * (a cached collection: region demo.Customer.purchases).
 */
@Entity
@Cacheable
@Cache(usage = CacheConcurrencyStrategy.READ_WRITE)
public class Customer {
  @Id
  private Long id;
  private String name;
  @OneToMany(mappedBy = "customer", cascade = CascadeType.ALL)
  @Cache(usage = CacheConcurrencyStrategy.READ_WRITE)
  private List<Purchase> purchases = new ArrayList<>();

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

  void setName(String name) {
    this.name = name;
  }

  public List<Purchase> getPurchases() {
    return purchases;
  }

  void addPurchase(Purchase p) {
    p.setCustomer(this);
    purchases.add(p);
  }

  /** The name of customer {@code id}. */
  static String nameOf(long id) {
    return "customer-" + id + "-" + "n".repeat(200);
  }
}
