package demo;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Read-only views of a customer, each through one of Hibernate's cache regions. */
@Service
@Transactional(readOnly = true)
public class CustomerService {
  private final CustomerRepository customers;

  public CustomerService(CustomerRepository customers) {
    this.customers = customers;
  }

  /** The name (entity region). */
  public String name(long id) {
    return customers.findById(id).map(Customer::getName).orElse("none");
  }

  /** "N purchases, C cents" (collection region, and the purchases' entity region). */
  public String purchases(long id) {
    return customers.findById(id).map(c -> c.getPurchases().size() + " purchases, "
        + c.getPurchases().stream().mapToLong(Purchase::getCents).sum() + " cents").orElse("none");
  }

  /** The name by a cacheable query (query-results region, checked against the update-timestamps region). */
  public String nameByQuery(long id) {
    String name = customers.nameByQuery(id);
    return name == null ? "none" : name;
  }
}
