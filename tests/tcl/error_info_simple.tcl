catch {error boom}
puts $errorInfo
