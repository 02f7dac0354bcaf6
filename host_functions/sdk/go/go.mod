module smtguest

go 1.24
