package demo;

import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * Fills the database (it outlives the process) with demo.customers rows, two purchases each, on the first start.
 */
@Component
public class Seed implements ApplicationRunner {
  private final CustomerRepository customers;
  private final int count;

  public Seed(CustomerRepository customers, @Value("${demo.customers:2000}") int count) {
    this.customers = customers;
    this.count = count;
  }

  @Override
  public void run(ApplicationArguments args) {
    if (customers.count() > 0) {
      return;
    }
    List<Customer> rows = new ArrayList<>(count);
    for (long id = 0; id < count; id++) {
      Customer c = new Customer(id, Customer.nameOf(id));
      c.addPurchase(new Purchase(Purchase.idOf(id, 0), id));
      c.addPurchase(new Purchase(Purchase.idOf(id, 1), 2 * id));
      rows.add(c);
    }
    customers.saveAll(rows);
  }
}
