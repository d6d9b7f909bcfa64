package demo;

import jakarta.persistence.Cacheable;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;
import org.hibernate.annotations.Cache;
import org.hibernate.annotations.CacheConcurrencyStrategy;

/** A purchase of a customer: an element of the cached collection Customer.purchases (region demo.Purchase). */
@Entity
@Cacheable
@Cache(usage = CacheConcurrencyStrategy.READ_WRITE)
public class Purchase {
  @Id
  private Long id;
  private long cents;
  @ManyToOne(fetch = FetchType.LAZY)
  private Customer customer;

  protected Purchase() {}

  Purchase(Long id, long cents) {
    this.id = id;
    this.cents = cents;
  }

  public long getCents() {
    return cents;
  }

  void setCustomer(Customer customer) {
    this.customer = customer;
  }

  /** The id of purchase {@code n} of customer {@code customerId} (ids of one customer do not meet another's). */
  static long idOf(long customerId, long n) {
    return customerId * 1_000_000 + n;
  }
}
