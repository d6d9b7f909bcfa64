package demo;

import org.springframework.data.jpa.repository.JpaRepository;

/** Customers by id. */
public interface CustomerRepository extends JpaRepository<Customer, Long> {}
