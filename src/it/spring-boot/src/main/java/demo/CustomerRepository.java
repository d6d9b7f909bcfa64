package demo;

import jakarta.persistence.QueryHint;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;
import org.springframework.data.jpa.repository.QueryHints;
import org.springframework.data.repository.query.Param;

/** Customers by id, and a customer's name by a cacheable query (Hibernate's query-results region). */
public interface CustomerRepository extends JpaRepository<Customer, Long> {
  @QueryHints(@QueryHint(name = "org.hibernate.cacheable", value = "true"))
  @Query("select c.name from Customer c where c.id = :id")
  String nameByQuery(@Param("id") long id);
}
