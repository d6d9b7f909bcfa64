package demo;

import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * GET /customers/{id}: the name (entity region); /customers/{id}/purchases: count and sum (collection region);
 * /customers/{id}/by-query: the name by a cacheable query (query-results region); each one line. GET
 * /race/{id}?rounds=N: {@link StaleReadCheck} on customer {id}.
 */
@RestController
public class CustomerController {
  private final CustomerService customers;
  private final StaleReadCheck race;

  public CustomerController(CustomerService customers, StaleReadCheck race) {
    this.customers = customers;
    this.race = race;
  }

  @GetMapping("/customers/{id}")
  public String customer(@PathVariable("id") long id) {
    return customers.name(id) + "\n";
  }

  @GetMapping("/customers/{id}/purchases")
  public String purchases(@PathVariable("id") long id) {
    return customers.purchases(id) + "\n";
  }

  @GetMapping("/customers/{id}/by-query")
  public String byQuery(@PathVariable("id") long id) {
    return customers.nameByQuery(id) + "\n";
  }

  @GetMapping("/race/{id}")
  public Map<String, Object> race(@PathVariable("id") long id, @RequestParam("rounds") int rounds)
      throws InterruptedException {
    return race.run(id, rounds);
  }
}
